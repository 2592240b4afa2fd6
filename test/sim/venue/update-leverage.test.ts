import { describe, expect, it } from "vitest";
import { ALICE, BOB, ETH, testVenue } from "./helpers.ts";

const ARB = 11; // 10×, margin table: 5× from $3M

const ISOLATED_SHORT =
  "Isolated position does not have sufficient margin available to decrease leverage. To decrease leverage, add margin to the position.";
const CROSS_SHORT = "Cross position does not have sufficient margin available to decrease leverage.";
const OK = { status: "ok", response: { type: "default" } };

type Venue = ReturnType<typeof testVenue>;
const leverage = (t: Venue, lev: number, isCross: boolean, asset = ETH) =>
  t.ex(ALICE, { type: "updateLeverage", asset, isCross, leverage: lev });
const position = (t: Venue) =>
  t.state(ALICE).assetPositions[0]!.position as unknown as {
    marginUsed: string;
    leverage: { value: number };
  };

/** ALICE ($10,000) long `eth` ETH at 3,400, at `lev`×, cross or isolated. */
function long(lev: number, isCross: boolean, eth = "1") {
  const t = testVenue({ balance: "10000" });
  t.venue.deposit(BOB, "1000000");
  expect(leverage(t, lev, isCross)).toEqual(OK);
  t.order(BOB, { a: ETH, b: false, p: "3400", s: eth });
  expect(t.order(ALICE, { a: ETH, b: true, p: "3400", s: eth })).toMatchObject({ filled: { totalSz: eth } });
  return t;
}

describe("updateLeverage on an open isolated position", () => {
  it("lowers the leverage only when the position's own margin holds it, and moves no USDC into it", () => {
    const t = long(10, false); // 340 of margin
    const before = t.state(ALICE);
    // 5× needs 680 at the mark: the exchange refuses rather than take it from the balance.
    expect(leverage(t, 5, false)).toEqual({ status: "err", response: ISOLATED_SHORT });
    expect(position(t)).toMatchObject({ marginUsed: "340", leverage: { value: 10 } });
    expect(t.state(ALICE).withdrawable).toBe(before.withdrawable);
    // Margin added first (the refusal's own advice), the same change goes through, nothing moves.
    t.ex(ALICE, { type: "updateIsolatedMargin", asset: ETH, isBuy: true, ntli: 340_000_000 });
    const topped = t.state(ALICE);
    expect(leverage(t, 5, false)).toEqual(OK);
    expect(position(t)).toMatchObject({ marginUsed: "680", leverage: { value: 5 } });
    expect(t.state(ALICE).withdrawable).toBe(topped.withdrawable);
    expect(t.state(ALICE).marginSummary).toEqual(topped.marginSummary);
  });

  it("holds the decrease to the transfer margin requirement: at least 10 % of the value stays", () => {
    const t = long(20, false); // 170 of margin; 15× needs 226.67, 10 % of 3,400 is 340
    t.ex(ALICE, { type: "updateIsolatedMargin", asset: ETH, isBuy: true, ntli: 100_000_000 });
    expect(leverage(t, 15, false)).toEqual({ status: "err", response: ISOLATED_SHORT });
    t.ex(ALICE, { type: "updateIsolatedMargin", asset: ETH, isBuy: true, ntli: 70_000_000 });
    expect(leverage(t, 15, false)).toEqual(OK);
    expect(position(t)).toMatchObject({ marginUsed: "340", leverage: { value: 15 } });
  });

  it("counts the position's uPnL, a loss against the decrease and a profit for it, at the mark", () => {
    const loss = long(10, false);
    loss.ex(ALICE, { type: "updateIsolatedMargin", asset: ETH, isBuy: true, ntli: 340_000_000 }); // 680
    loss.venue.setOraclePrice("ETH", "3300"); // 5× needs 660; 680 − 100 of loss is 580
    expect(leverage(loss, 5, false)).toEqual({ status: "err", response: ISOLATED_SHORT });
    const gain = long(10, false);
    gain.ex(ALICE, { type: "updateIsolatedMargin", asset: ETH, isBuy: true, ntli: 340_000_000 });
    gain.venue.setOraclePrice("ETH", "3500"); // 5× needs 700; 680 + 100 of profit is 780
    expect(leverage(gain, 5, false)).toEqual(OK);
    // An isolated position's marginUsed includes its uPnL: still the 680 put in, plus the 100.
    expect(position(gain)).toMatchObject({ marginUsed: "780", leverage: { value: 5 } });
  });

  it("raises the leverage without giving margin back", () => {
    const t = long(5, false); // 680 of margin
    const before = t.state(ALICE);
    expect(leverage(t, 10, false)).toEqual(OK);
    expect(position(t)).toMatchObject({ marginUsed: "680", leverage: { value: 10 } });
    expect(t.state(ALICE).withdrawable).toBe(before.withdrawable);
    // Setting the same leverage again is answered ok, as a change.
    expect(leverage(t, 10, false)).toEqual(OK);
  });

  it("never switches the margin mode of an open position, either way", () => {
    const iso = long(10, false);
    expect(leverage(iso, 10, true)).toEqual({
      status: "err",
      response: "Cannot switch leverage type with open position.",
    });
    const cross = long(10, true);
    expect(leverage(cross, 10, false)).toEqual({
      status: "err",
      response: "Cannot switch leverage type with open position.",
    });
    expect(position(cross).leverage).toMatchObject({ type: "cross", value: 10 });
  });
});

describe("updateLeverage on an open cross position", () => {
  it("lowers the leverage only while the account holds the transfer margin requirement at it", () => {
    // 30 ETH = $102,000 at 25×: 4,080 of initial margin on ~$9,954 of equity (taker fee paid).
    const t = long(25, true, "30");
    // 20× needs 5,100 of initial margin (free collateral would allow it), but 10 % of the
    // value, 10,200, is more than the account holds.
    expect(leverage(t, 20, true)).toEqual({ status: "err", response: CROSS_SHORT });
    expect(position(t).leverage.value).toBe(25);
    // Half the position closed: 10 % of $51,000 = 5,100 stays within the equity.
    t.order(BOB, { a: ETH, b: true, p: "3400", s: "15" });
    t.order(ALICE, { a: ETH, b: false, p: "3400", s: "15" });
    expect(leverage(t, 20, true)).toEqual(OK);
    expect(position(t)).toMatchObject({ marginUsed: "2550", leverage: { value: 20 } });
  });

  it("raises the leverage of a cross position the account could not lower", () => {
    const t = long(20, true, "30"); // 10 % of $102,000 is above the equity
    expect(leverage(t, 25, true)).toEqual(OK);
    expect(position(t).leverage.value).toBe(25);
  });
});

describe("updateLeverage beyond the margin table", () => {
  it("refuses to raise the leverage of a position past the tier that allows it (ARB: 5× from $3M)", () => {
    const t = testVenue({
      balance: "1000000",
      limits: { ARB: { openInterestCapUsd: 1e12, maxPositionAtHighLeverageUsd: 1e12 } },
    });
    t.venue.deposit(BOB, "1000000");
    expect(leverage(t, 5, true, ARB)).toEqual(OK);
    t.ex(BOB, { type: "updateLeverage", asset: ARB, isCross: true, leverage: 5 });
    t.order(BOB, { a: ARB, b: false, p: "0.45", s: "7000000" });
    expect(t.order(ALICE, { a: ARB, b: true, p: "0.45", s: "7000000" })).toMatchObject({
      filled: { totalSz: "7000000" },
    });
    // $3.15M at the mark: 6× is not allowed from $3M.
    expect(leverage(t, 6, true, ARB)).toEqual({
      status: "err",
      response: "Position exceeds margin tier limit at new leverage. asset=11",
    });
    expect(position(t).leverage.value).toBe(5);
    expect(leverage(t, 4, true, ARB)).toEqual(OK);
  });
});
