import { describe, expect, it } from "vitest";
import { ALICE, BOB, T0, testVenue } from "./helpers.ts";

const TSLA = 110001;
const VXX = 120000;
const USDC = "USDC:0x6d1e7cde53ba9467b783cb7c530ce054";

/** USDC from one of the account's own perp dexes to another ("" is the main dex). */
function sendAsset(sourceDex: string, destinationDex: string, amount: string, destination: string = ALICE) {
  return {
    type: "sendAsset",
    destination,
    sourceDex,
    destinationDex,
    token: USDC,
    amount,
    fromSubAccount: "",
  };
}

function enableDexAbstraction(t: ReturnType<typeof testVenue>, user: typeof ALICE) {
  expect(t.ex(user, { type: "userDexAbstraction", user, enabled: true })).toEqual({
    status: "ok",
    response: { type: "default" },
  });
}

// Hyperliquid: a new account is in standard mode (`userAbstraction` answers "default",
// `userDexAbstraction` null): each perp dex keeps its own USDC, and cross margin on a HIP-3 dex is
// limited to that dex's collateral. Dex abstraction (userDexAbstraction / agentEnableDexAbstraction,
// or userSetAbstraction "dexAbstraction") makes HIP-3 actions draw USDC from the main perp balance.
describe("account abstraction modes", () => {
  it("a new account holds nothing on a HIP-3 dex: an xyz order is refused for margin", () => {
    const t = testVenue({ balance: "10000" });
    expect(t.venue.info({ type: "userAbstraction", user: ALICE })).toBe("default");
    expect(t.venue.info({ type: "userDexAbstraction", user: ALICE })).toBeNull();
    expect(t.order(ALICE, { a: TSLA, b: true, p: "370", s: "1" })).toEqual({
      error: `Insufficient margin to place order. asset=${TSLA}`,
    });
    // Isolated-only yex draws on yex's own balance as well.
    expect(t.order(ALICE, { a: VXX, b: true, p: "20", s: "10" })).toEqual({
      error: `Insufficient margin to place order. asset=${VXX}`,
    });
    expect(t.state(ALICE, "xyz").marginSummary.accountValue).toBe("0");
    expect(t.state(ALICE).marginSummary.accountValue).toBe("10000");
  });

  it("sendAsset moves USDC to a HIP-3 dex; cross margin there is that dex's balance alone", () => {
    const t = testVenue({ balance: "10000" });
    expect(t.ex(ALICE, sendAsset("", "xyz", "100")).status).toBe("ok");
    expect(t.state(ALICE).withdrawable).toBe("9900");
    expect(t.state(ALICE, "xyz")).toMatchObject({
      marginSummary: { accountValue: "100" },
      withdrawable: "100",
    });
    expect(t.ex(ALICE, { type: "updateLeverage", asset: TSLA, isCross: true, leverage: 10 }).status).toBe(
      "ok",
    );
    // $370 at 10× needs $37: fits the $100 on xyz; $3,700 (needs $370) does not, whatever the main dex holds.
    expect(t.order(ALICE, { a: TSLA, b: true, p: "370", s: "1" })).toMatchObject({ resting: {} });
    expect(t.order(ALICE, { a: TSLA, b: true, p: "370", s: "10" })).toEqual({
      error: `Insufficient margin to place order. asset=${TSLA}`,
    });
    expect(t.state(ALICE, "xyz").withdrawable).toBe("63");
    // Only what is free on xyz may leave it.
    expect(t.ex(ALICE, sendAsset("xyz", "", "64"))).toEqual({
      status: "err",
      response: "Insufficient balance for transfer.",
    });
    expect(t.ex(ALICE, sendAsset("xyz", "", "63")).status).toBe("ok");
    expect(t.state(ALICE).withdrawable).toBe("9963");
  });

  it("a cross position on a HIP-3 dex is liquidated against that dex's USDC alone", () => {
    const t = testVenue({ balance: "10000" });
    enableDexAbstraction(t, BOB);
    expect(t.ex(ALICE, sendAsset("", "xyz", "100")).status).toBe("ok");
    expect(t.ex(ALICE, { type: "updateLeverage", asset: TSLA, isCross: true, leverage: 10 }).status).toBe(
      "ok",
    );
    t.order(BOB, { a: TSLA, b: false, p: "370", s: "2" });
    expect(t.order(ALICE, { a: TSLA, b: true, p: "370", s: "2" })).toMatchObject({
      filled: { totalSz: "2" },
    });
    // $740 long with $100 behind it on xyz: a fall to $300 costs $140, more than xyz holds, while the
    // main dex still holds $9,900 that does not margin it.
    t.venue.setOraclePrice("xyz:TSLA", "300");
    t.clock.now = T0 + 1000;
    t.venue.advance(t.clock.now);
    expect(t.state(ALICE, "xyz").assetPositions).toEqual([]);
    expect(t.state(ALICE).marginSummary.accountValue).toBe("9900");
    const ledger = t.venue.info({ type: "userNonFundingLedgerUpdates", user: ALICE }) as {
      delta: Record<string, unknown>;
    }[];
    expect(ledger.at(-1)!.delta).toMatchObject({ type: "liquidation", leverageType: "Cross" });
  });

  it("dex abstraction margins HIP-3 orders from the main perp balance", () => {
    const t = testVenue({ balance: "10000" });
    enableDexAbstraction(t, ALICE);
    expect(t.venue.info({ type: "userAbstraction", user: ALICE })).toBe("dexAbstraction");
    expect(t.venue.info({ type: "userDexAbstraction", user: ALICE })).toBe(true);
    expect(t.order(ALICE, { a: TSLA, b: true, p: "370", s: "1" })).toMatchObject({ resting: {} });
  });

  it("agentEnableDexAbstraction only turns a never-set account on; userSetAbstraction sets disabled", () => {
    const t = testVenue({ balance: "10000" });
    expect(t.ex(ALICE, { type: "userSetAbstraction", user: ALICE, abstraction: "disabled" }).status).toBe(
      "ok",
    );
    expect(t.venue.info({ type: "userAbstraction", user: ALICE })).toBe("disabled");
    expect(t.venue.info({ type: "userDexAbstraction", user: ALICE })).toBe(false);
    expect(t.ex(ALICE, { type: "agentEnableDexAbstraction" }).status).toBe("err");
    expect(t.ex(BOB, { type: "agentEnableDexAbstraction" }).status).toBe("ok");
    expect(t.venue.info({ type: "userAbstraction", user: BOB })).toBe("dexAbstraction");
    expect(t.ex(BOB, { type: "agentSetAbstraction", abstraction: "i" }).status).toBe("ok");
    expect(t.venue.info({ type: "userAbstraction", user: BOB })).toBe("disabled");
    // Unified accounts and portfolio margin are not modelled: refused as such, never applied.
    expect(t.ex(BOB, { type: "userSetAbstraction", user: BOB, abstraction: "unifiedAccount" })).toEqual({
      status: "err",
      response: "userSetAbstraction unifiedAccount is not modelled by the sim world.",
    });
    expect(t.ex(BOB, { type: "agentSetAbstraction", abstraction: "p" })).toEqual({
      status: "err",
      response: "agentSetAbstraction p is not modelled by the sim world.",
    });
  });

  it("refuses a change of mode while a HIP-3 dex holds something of the account (the sim's strict reading)", () => {
    const t = testVenue({ balance: "10000" });
    expect(t.ex(ALICE, sendAsset("", "xyz", "100")).status).toBe("ok");
    const refused = {
      status: "err",
      response:
        "Cannot change abstraction while a HIP-3 dex holds positions, open orders or USDC of the account.",
    };
    expect(t.ex(ALICE, { type: "userDexAbstraction", user: ALICE, enabled: true })).toEqual(refused);
    expect(t.ex(ALICE, { type: "agentEnableDexAbstraction" })).toEqual(refused);
    // Standard to standard moves nothing and is accepted; back on the main dex, the change goes through.
    expect(t.ex(ALICE, { type: "agentSetAbstraction", abstraction: "i" }).status).toBe("ok");
    expect(t.ex(ALICE, sendAsset("xyz", "", "100")).status).toBe("ok");
    enableDexAbstraction(t, ALICE);
    expect(t.ex(ALICE, { type: "userDexAbstraction", user: BOB, enabled: true })).toEqual({
      status: "err",
      response: "The user of the action must be the signer's own account.",
    });
  });

  it("keeps the mode and each dex's balance across a snapshot", () => {
    const t = testVenue({ balance: "10000" });
    t.clock.now = T0 + 1;
    expect(t.ex(ALICE, sendAsset("", "yex", "250")).status).toBe("ok");
    enableDexAbstraction(t, BOB);
    const snap = JSON.parse(JSON.stringify(t.venue.snapshot([])));
    const u = testVenue({ balance: "10000" });
    u.venue.restore(snap);
    expect(u.venue.info({ type: "userAbstraction", user: BOB })).toBe("dexAbstraction");
    expect(u.venue.info({ type: "userAbstraction", user: ALICE })).toBe("default");
    expect(u.state(ALICE, "yex").marginSummary.accountValue).toBe("250");
    expect(u.state(ALICE).marginSummary.accountValue).toBe("9750");
  });
});
