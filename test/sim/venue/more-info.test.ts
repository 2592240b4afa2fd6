import { describe, expect, it } from "vitest";
import { ALICE, BOB, BTC, dexAbstraction, T0, testVenue } from "./helpers.ts";

const HOUR = 3_600_000;
const YEX_VXX = 120_000;

/** A venue where ALICE bought 0.1 BTC from BOB's resting sell an hour after the start. */
function traded() {
  const t = testVenue({ balance: "10000" });
  t.state(ALICE); // opens the account (its deposit) at T0
  t.clock.now = T0 + HOUR;
  t.order(BOB, { a: BTC, b: false, p: "100000", s: "0.1" });
  t.order(ALICE, { a: BTC, b: true, p: "100000", s: "0.1", t: { limit: { tif: "Ioc" } } });
  t.clock.now = T0 + 2 * HOUR;
  return t;
}

describe("info types the exchange serves beyond the basics", () => {
  it("exchangeStatus carries the server time", () => {
    const t = testVenue();
    expect(t.venue.info({ type: "exchangeStatus" })).toEqual({ time: T0, specialStatuses: null });
  });

  it("allPerpMetas lists each dex's meta in perpDexs order", () => {
    const t = testVenue();
    const all = t.venue.info({ type: "allPerpMetas" }) as { universe: { name: string }[] }[];
    expect(all).toHaveLength(3);
    expect(all[0]).toEqual(t.venue.info({ type: "meta" }));
    expect(all[2]!.universe.map((u) => u.name)).toContain("yex:VXX");
  });

  it("marginTable answers an id that meta lists and refuses one it does not", () => {
    const t = testVenue();
    const meta = t.venue.info({ type: "meta" }) as { marginTables: [number, unknown][] };
    const [id, table] = meta.marginTables[0]!;
    expect(t.venue.info({ type: "marginTable", id })).toEqual(table);
    expect(() => t.venue.info({ type: "marginTable", id: 987654 })).toThrow(/Unknown margin table/);
  });

  it("perpDexLimits: null for the main dex, the caps perpDexs lists for a HIP-3 dex", () => {
    const limits = { "yex:US3M": { openInterestCapUsd: 7_000_000, maxPositionAtHighLeverageUsd: 1e9 } };
    const t = testVenue({ limits });
    expect(t.venue.info({ type: "perpDexLimits", dex: "" })).toBeNull();
    const yex = t.venue.info({ type: "perpDexLimits", dex: "yex" }) as {
      totalOiCap: string;
      coinToOiCap: [string, string][];
    };
    expect(yex.coinToOiCap.map(([c]) => c)).toEqual(["yex:VXX", "yex:US3M", "yex:BTCSWP"]);
    // The order rules' caps: $7M set for US3M, yex's own $10M for the other two.
    expect(yex.coinToOiCap[1]).toEqual(["yex:US3M", "7000000.0"]);
    expect(yex.totalOiCap).toBe("27000000");
    expect(() => t.venue.info({ type: "perpDexLimits", dex: "nope" })).toThrow(/Unknown dex/);
  });

  it("perpDexStatus: the main dex holds the deposits, a HIP-3 dex the margin of its positions", () => {
    const t = testVenue({ balance: "10000" });
    dexAbstraction(t, ALICE, BOB);
    t.order(BOB, { a: YEX_VXX, b: false, p: "45", s: "100" });
    t.order(ALICE, { a: YEX_VXX, b: true, p: "45", s: "100" });
    const yex = t.venue.info({ type: "perpDexStatus", dex: "yex" }) as { totalNetDeposit: string };
    const main = t.venue.info({ type: "perpDexStatus", dex: "" }) as { totalNetDeposit: string };
    // 100 × $45 at 20x (the default, yex's first tier): $225 of margin on each side.
    expect(yex.totalNetDeposit).toBe("450");
    expect(Number(main.totalNetDeposit) + Number(yex.totalNetDeposit)).toBe(20000);
  });

  it("maxMarketOrderNtls follows the contract specification's leverage bands", () => {
    const t = testVenue();
    const rows = t.venue.info({ type: "maxMarketOrderNtls" }) as [number, string][];
    const byCoin = new Map(rows.map(([ntl, coin]) => [coin, ntl]));
    expect(byCoin.get("BTC")).toBe(1_000_000); // 40x
    expect(byCoin.get("HYPE")).toBe(500_000); // 10x
    expect(byCoin.has("yex:VXX")).toBe(false);
  });

  it("perpsAtOpenInterestCap lists a coin once its open interest reaches the cap", () => {
    const limits = { "yex:US3M": { openInterestCapUsd: 10_000_000, maxPositionAtHighLeverageUsd: 1e9 } };
    const t = testVenue({ balance: "100000000", limits });
    dexAbstraction(t, ALICE, BOB);
    const caps = t.venue.info({ type: "perpDexs" }) as ({
      assetToStreamingOiCap: [string, string][];
    } | null)[];
    expect(caps[2]?.assetToStreamingOiCap).toContainEqual(["yex:US3M", "10000000.0"]);
    // $9.66M of open interest on yex:US3M: under the cap (at 2×, the leverage yex allows past $5M).
    for (const user of [ALICE, BOB])
      t.ex(user, { type: "updateLeverage", asset: 120_001, isCross: false, leverage: 2 });
    t.order(BOB, { a: 120_001, b: false, p: "4.2", s: "2300000" });
    t.order(ALICE, { a: 120_001, b: true, p: "4.2", s: "2300000" });
    expect(t.venue.info({ type: "perpsAtOpenInterestCap", dex: "yex" })).toEqual([]);
    // The mark rises until that open interest is worth the cap.
    t.venue.setOraclePrice("yex:US3M", "4.4");
    expect(t.venue.info({ type: "perpsAtOpenInterestCap", dex: "yex" })).toEqual(["yex:US3M"]);
  });

  it("subAccounts, twapHistory and userVaultEquities answer as for a user without any", () => {
    const t = testVenue();
    expect(t.venue.info({ type: "subAccounts", user: ALICE })).toBeNull();
    expect(t.venue.info({ type: "twapHistory", user: ALICE })).toEqual([]);
    expect(t.venue.info({ type: "userVaultEquities", user: ALICE })).toEqual([]);
    expect(() => t.venue.info({ type: "subAccounts", user: "me" })).toThrow(/0x address/);
  });

  it("portfolio: account value, PnL and volume over each window, perp windows included", () => {
    const t = traded();
    const p = t.venue.info({ type: "portfolio", user: ALICE }) as [
      string,
      { accountValueHistory: [number, string][]; pnlHistory: [number, string][]; vlm: string },
    ][];
    expect(p.map(([k]) => k)).toEqual([
      "day",
      "week",
      "month",
      "allTime",
      "perpDay",
      "perpWeek",
      "perpMonth",
      "perpAllTime",
    ]);
    const day = p[0]![1];
    expect(day.vlm).toBe("10000");
    expect(day.accountValueHistory[0]).toEqual([T0, "10000"]);
    // Now: the taker fee (0.045% of $10,000) paid, the position marked at 97,000 (−$300).
    expect(day.accountValueHistory.at(-1)).toEqual([T0 + 2 * HOUR, "9695.5"]);
    expect(day.pnlHistory.at(-1)).toEqual([T0 + 2 * HOUR, "-304.5"]);
    expect(day.pnlHistory[0]).toEqual([T0, "0"]);
    expect(day.accountValueHistory[1]).toEqual([T0 + HOUR, "9995.5"]);
  });

  it("webData2 bundles the user's state with the main dex's markets", () => {
    const t = traded();
    const agent = "0xa9e0000000000000000000000000000000000a9e";
    t.ex(ALICE, { type: "approveAgent", agentAddress: agent, agentName: null, nonce: 5 });
    t.order(ALICE, { a: BTC, b: true, p: "90000", s: "0.01" });
    const w = t.venue.info({ type: "webData2", user: ALICE }) as Record<string, unknown>;
    expect(w.clearinghouseState).toEqual(t.venue.info({ type: "clearinghouseState", user: ALICE }));
    expect(w.openOrders).toEqual(t.venue.info({ type: "frontendOpenOrders", user: ALICE }));
    expect(w.meta).toEqual(t.venue.info({ type: "meta" }));
    expect((w.assetCtxs as unknown[]).length).toBe((w.meta as { universe: unknown[] }).universe.length);
    expect(w).toMatchObject({ user: ALICE, agentAddress: agent, cumLedger: "10000", isVault: false });
    expect(w.serverTime).toBe(T0 + 2 * HOUR);
  });

  it("userFees lists the fee schedule's tiers and 15 days of volume, the user's and the exchange's", () => {
    const t = traded();
    const f = t.venue.info({ type: "userFees", user: ALICE }) as {
      dailyUserVlm: { date: string; userCross: string; userAdd: string; exchange: string }[];
      feeSchedule: {
        tiers: { vip: { ntlCutoff: string }[]; mm: unknown[] };
        stakingDiscountTiers: unknown[];
      };
    };
    expect(f.feeSchedule.tiers.vip.map((v) => v.ntlCutoff)).toEqual([
      "5000000.0",
      "25000000.0",
      "100000000.0",
      "500000000.0",
      "2000000000.0",
      "7000000000.0",
    ]);
    expect(f.feeSchedule.tiers.mm).toHaveLength(3);
    expect(f.feeSchedule.stakingDiscountTiers).toHaveLength(7);
    expect(f.dailyUserVlm).toHaveLength(15);
    expect(f.dailyUserVlm.at(-1)).toEqual({
      date: "2026-11-22",
      userCross: "10000",
      userAdd: "0",
      exchange: "10000",
    });
    expect(f.dailyUserVlm[0]!.date).toBe("2026-11-08");
    const bob = t.venue.info({ type: "userFees", user: BOB }) as typeof f;
    expect(bob.dailyUserVlm.at(-1)).toMatchObject({ userCross: "0", userAdd: "10000" });
  });

  it("sub-accounts, vaults, TWAP fills, multi-sig and staking answer as for an account without any", () => {
    const t = testVenue();
    const ask = (type: string, more: Record<string, unknown> = {}) =>
      t.venue.info({ type, user: ALICE, ...more });
    expect(ask("subAccounts2")).toBeNull();
    expect(ask("userToMultiSigSigners")).toBeNull();
    expect(ask("vaultDetails", { vaultAddress: BOB })).toBeNull();
    expect(ask("leadingVaults")).toEqual([]);
    expect(ask("userTwapSliceFills")).toEqual([]);
    expect(ask("userTwapSliceFillsByTime", { startTime: T0 })).toEqual([]);
    expect(ask("delegations")).toEqual([]);
    expect(ask("delegatorHistory")).toEqual([]);
    expect(ask("delegatorRewards")).toEqual([]);
    expect(ask("delegatorSummary")).toEqual({
      delegated: "0.0",
      undelegated: "0.0",
      totalPendingWithdrawal: "0.0",
      nPendingWithdrawals: 0,
    });
    expect(t.venue.info({ type: "vaultSummaries" })).toEqual([]);
    expect(t.venue.info({ type: "liquidatable" })).toEqual([]);
    expect(t.venue.info({ type: "outcomeMeta" })).toEqual({ outcomes: [], questions: [] });
    expect(() => t.venue.info({ type: "vaultDetails", vaultAddress: "vault" })).toThrow(/vaultAddress/);
    expect(() => ask("userTwapSliceFillsByTime")).toThrow(/startTime/);
    expect(() => t.venue.info({ type: "delegations", user: "me" })).toThrow(/0x address/);
  });

  it("a type the sim does not serve is refused with the exchange's own text", () => {
    const t = testVenue();
    for (const type of ["tokenDetails", "validatorSummaries", "noSuchThing"])
      expect(() => t.venue.info({ type, user: ALICE })).toThrow(
        /^Failed to deserialize the JSON body into the target type$/,
      );
  });

  it("l2Book of a coin the venue does not list is null, as on the exchange", () => {
    const t = testVenue();
    expect(t.venue.info({ type: "l2Book", coin: "NOPE" })).toBeNull();
  });
});
