import { describe, expect, it } from "vitest";
import { ALICE, BOB, BTC, CAROL, ETH, T0, testVenue } from "./helpers.ts";

const MON = 215; // onlyIsolated, marginMode "strictIsolated", 3x

type Pos = Record<string, unknown> & { marginUsed: string; liquidationPx: string | null };

/** ALICE: $10,000 and a 1 ETH long at 3,400, isolated at `lev`× (opened with 3,400 / lev of margin). */
function isolatedLong(lev: number, side: "long" | "short" = "long") {
  const t = testVenue({ balance: "10000" });
  t.venue.deposit(BOB, "100000");
  expect(t.ex(ALICE, { type: "updateLeverage", asset: ETH, isCross: false, leverage: lev }).status).toBe(
    "ok",
  );
  const long = side === "long";
  t.order(BOB, { a: ETH, b: !long, p: "3400", s: "1" });
  expect(t.order(ALICE, { a: ETH, b: long, p: "3400", s: "1" })).toMatchObject({ filled: { totalSz: "1" } });
  return t;
}

const margin = (t: ReturnType<typeof testVenue>, ntli: number, asset = ETH, isBuy = true) =>
  t.ex(ALICE, { type: "updateIsolatedMargin", asset, isBuy, ntli });
const position = (t: ReturnType<typeof testVenue>) =>
  t.state(ALICE).assetPositions[0]!.position as unknown as Pos;

describe("updateIsolatedMargin", () => {
  it("adds margin to an isolated position: its margin, liquidation price and the account move with it", () => {
    const t = isolatedLong(10);
    const before = t.state(ALICE);
    expect(position(t)).toMatchObject({ marginUsed: "340", liquidationPx: "3122.449" });
    expect(margin(t, 100_000_000)).toEqual({ status: "ok", response: { type: "default" } });
    const after = t.state(ALICE);
    // (3,400 − 440) / (1 − 1/50): the added margin pushes the liquidation price down.
    expect(position(t)).toMatchObject({
      marginUsed: "440",
      liquidationPx: "3020.4082",
      leverage: { type: "isolated", value: 10, rawUsd: "-2960" },
    });
    expect(after.marginSummary.accountValue).toBe(before.marginSummary.accountValue);
    expect(after.marginSummary.totalMarginUsed).toBe("440");
    expect(Number(after.withdrawable)).toBeCloseTo(Number(before.withdrawable) - 100, 6);
  });

  it("removes margin down to the initial margin at the mark, and no further", () => {
    const t = isolatedLong(5); // 680 of margin: initial margin 3,400 / 5 binds (above 10 % = 340)
    const free = t.state(ALICE).withdrawable;
    expect(margin(t, 200_000_000).status).toBe("ok");
    expect(margin(t, -200_000_000)).toEqual({ status: "ok", response: { type: "default" } });
    expect(position(t).marginUsed).toBe("680");
    expect(margin(t, -1)).toEqual({
      status: "err",
      response: "Insufficient margin to remove from isolated position. asset=1",
    });
    expect(position(t).marginUsed).toBe("680");
    expect(t.state(ALICE).withdrawable).toBe(free);
  });

  it("keeps at least 10 % of the position's value when that is above the initial margin", () => {
    const t = isolatedLong(20); // opened with 170; 10 % of 3,400 = 340 binds
    expect(margin(t, -1).status).toBe("err");
    expect(margin(t, 500_000_000).status).toBe("ok"); // 670
    expect(margin(t, -330_000_001).status).toBe("err");
    expect(margin(t, -330_000_000).status).toBe("ok");
    expect(position(t).marginUsed).toBe("340");
  });

  it("counts unrealized PnL against what must stay, and never takes out more than was put in", () => {
    const t = isolatedLong(5);
    t.venue.setOraclePrice("ETH", "3000"); // −400 uPnL; 680 − 400 = 280 of equity left
    expect(margin(t, 400_000_000).status).toBe("ok"); // 1,080 + (−400) = 680 ≥ 3,000 / 5 = 600
    expect(margin(t, -80_000_001).status).toBe("err");
    expect(margin(t, -80_000_000).status).toBe("ok");
    t.venue.setOraclePrice("ETH", "6000"); // +2,600 uPnL on 1,000 of margin: 1,200 must stay
    expect(margin(t, -1_000_000_001).status).toBe("err");
    expect(margin(t, -1_000_000_000).status).toBe("ok");
  });

  it("adds no more than the free collateral", () => {
    const t = isolatedLong(10);
    const free = Math.round(Number(t.state(ALICE).withdrawable) * 1e6);
    expect(margin(t, free + 1)).toEqual({
      status: "err",
      response: "Insufficient margin to add to isolated position. asset=1",
    });
    expect(margin(t, free).status).toBe("ok");
    expect(t.state(ALICE).withdrawable).toBe("0");
  });

  it("takes the position's side from the position: isBuy is not checked (the Python SDK always sends true)", () => {
    const t = isolatedLong(10, "short");
    expect(margin(t, 50_000_000, ETH, true).status).toBe("ok");
    expect(margin(t, 50_000_000, ETH, false).status).toBe("ok");
    expect(position(t).marginUsed).toBe("440");
  });

  it("is refused without an isolated position, for a cross one, an unknown asset and a bad amount", () => {
    const t = isolatedLong(10);
    expect(margin(t, 1_000_000, BTC)).toEqual({
      status: "err",
      response: "No isolated position to update margin for. asset=0",
    });
    t.ex(BOB, { type: "updateLeverage", asset: BTC, isCross: true, leverage: 10 });
    t.order(CAROL, { a: BTC, b: false, p: "97000", s: "0.01" });
    t.order(BOB, { a: BTC, b: true, p: "97000", s: "0.01" });
    // A cross position: the exchange's own answer (observed on testnet).
    expect(t.ex(BOB, { type: "updateIsolatedMargin", asset: BTC, isBuy: true, ntli: 1_000_000 })).toEqual({
      status: "err",
      response: "Position does not use isolated margin.",
    });
    expect(margin(t, 1_000_000, 999)).toEqual({ status: "err", response: "Unknown asset 999." });
    for (const ntli of [0, 1.5, "1000000", null])
      expect(t.ex(ALICE, { type: "updateIsolatedMargin", asset: ETH, isBuy: true, ntli })).toEqual({
        status: "err",
        response: "Invalid updateIsolatedMargin action.",
      });
    expect(t.ex(ALICE, { type: "updateIsolatedMargin", asset: ETH, ntli: 1_000_000 })).toEqual({
      status: "err",
      response: "Invalid updateIsolatedMargin action.",
    });
  });

  it("on a strict-isolated market margin can be added, not removed", () => {
    const t = testVenue({ balance: "10000" });
    t.venue.deposit(BOB, "100000");
    t.venue.setOraclePrice("MON", "0.1");
    t.order(BOB, { a: MON, b: false, p: "0.1", s: "1000" });
    expect(t.order(ALICE, { a: MON, b: true, p: "0.1", s: "1000" })).toMatchObject({ filled: {} });
    expect(margin(t, 10_000_000, MON).status).toBe("ok");
    expect(margin(t, -1_000_000, MON)).toEqual({
      status: "err",
      response: "Cannot remove margin from a strict isolated position. asset=215",
    });
  });

  it("margin added keeps the position out of liquidation where it would otherwise be liquidated", () => {
    const run = (extra: number) => {
      const t = isolatedLong(10);
      t.order(CAROL, { a: ETH, b: true, p: "3000", s: "5" });
      if (extra) expect(margin(t, extra).status).toBe("ok");
      // Maintenance at 3,100 is 62: 340 − 300 = 40 is below it, 540 − 300 = 240 is not.
      t.venue.setOraclePrice("ETH", "3100");
      t.clock.now = T0 + 1_000;
      t.venue.advance(t.clock.now);
      return t.state(ALICE).assetPositions.length;
    };
    expect(run(0)).toBe(0);
    expect(run(200_000_000)).toBe(1);
  });
});
