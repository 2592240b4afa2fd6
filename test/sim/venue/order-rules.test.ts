import { describe, expect, it } from "vitest";
import { ALICE, BOB, BTC, CAROL, ETH, testVenue } from "./helpers.ts";

/** Each rule of docs/exchange-rules.md, refused with the exchange's own text. */
describe("the exchange's order rules", () => {
  it("refuses a price with more than 5 significant figures or off the tick grid", () => {
    const t = testVenue();
    expect(t.order(ALICE, { a: BTC, b: true, p: "97000.5", s: "0.001" })).toEqual({
      error: "Order has invalid price.",
    });
    expect(t.order(ALICE, { a: ETH, b: true, p: "3400.123", s: "0.01" })).toEqual({
      error: "Order has invalid price.",
    });
  });

  it("refuses a size off szDecimals", () => {
    const t = testVenue();
    expect(t.order(ALICE, { a: BTC, b: true, p: "90000", s: "0.000001" })).toEqual({
      error: "Order has invalid size.",
    });
  });

  it("refuses an order worth less than $10", () => {
    const t = testVenue();
    expect(t.order(ALICE, { a: BTC, b: true, p: "90000", s: "0.0001" })).toEqual({
      error: "Order must have minimum value of $10. asset=0",
    });
  });

  it("refuses an order the free collateral cannot margin", () => {
    const t = testVenue();
    expect(t.order(ALICE, { a: BTC, b: true, p: "90000", s: "30" })).toEqual({
      error: "Insufficient margin to place order. asset=0",
    });
  });

  it("refuses a reduce-only order that would increase the position", () => {
    const t = testVenue();
    expect(t.order(ALICE, { a: BTC, b: true, p: "90000", s: "0.001", r: true })).toEqual({
      error: "Reduce only order would increase position. asset=0",
    });
  });

  it("refuses a post-only order that would match, quoting the bbo", () => {
    const t = testVenue();
    t.order(BOB, { a: BTC, b: false, p: "97010", s: "0.01" });
    expect(t.order(ALICE, { a: BTC, b: true, p: "97010", s: "0.001", t: { limit: { tif: "Alo" } } })).toEqual(
      {
        error: "Post only order would have immediately matched, bbo was 0@97010. asset=0",
      },
    );
  });

  it("refuses an IOC that could not match", () => {
    const t = testVenue();
    t.order(BOB, { a: BTC, b: false, p: "97010", s: "0.01" });
    expect(t.order(ALICE, { a: BTC, b: true, p: "96000", s: "0.001", t: { limit: { tif: "Ioc" } } })).toEqual(
      {
        error: "Order could not immediately match against any resting orders. asset=0",
      },
    );
  });

  it("refuses a market order when the other side of the book is empty", () => {
    const t = testVenue();
    expect(
      t.order(ALICE, { a: BTC, b: true, p: "100000", s: "0.001", t: { limit: { tif: "FrontendMarket" } } }),
    ).toEqual({ error: "No liquidity available for market order. asset=0" });
  });

  it("refuses a price more than 80% from the reference price, resting or crossing", () => {
    const t = testVenue();
    t.order(BOB, { a: BTC, b: false, p: "97010", s: "0.1" });
    t.order(CAROL, { a: BTC, b: true, p: "96990", s: "0.1" });
    const far = { error: "Order price cannot be more than 80% away from the reference price" };
    expect(
      t.order(ALICE, { a: BTC, b: true, p: "900000", s: "0.001", t: { limit: { tif: "Ioc" } } }),
    ).toEqual(far);
    expect(t.order(ALICE, { a: BTC, b: true, p: "2910", s: "0.01" })).toEqual(far);
    expect(t.order(ALICE, { a: BTC, b: false, p: "175000", s: "0.001" })).toEqual(far);
    expect(t.venue.info({ type: "userFills", user: ALICE })).toEqual([]);
    // Inside the band an order rests as before.
    expect(t.order(ALICE, { a: BTC, b: true, p: "50000", s: "0.001" })).toHaveProperty("resting");
  });

  it("refuses an order that would push open interest past its cap", () => {
    const t = testVenue({
      limits: { BTC: { openInterestCapUsd: 15_000, maxPositionAtHighLeverageUsd: 1e9 } },
    });
    expect(t.order(BOB, { a: BTC, b: false, p: "97000", s: "0.16" })).toEqual({
      error: "Order would increase open interest while open interest is capped asset=0",
    });
    t.order(BOB, { a: BTC, b: false, p: "97000", s: "0.15" });
    t.order(CAROL, { a: BTC, b: true, p: "96000", s: "0.05" });
    expect(t.order(ALICE, { a: BTC, b: true, p: "97000", s: "0.16", t: { limit: { tif: "Ioc" } } })).toEqual({
      error: "Order would increase open interest while open interest is capped asset=0",
    });
    expect(
      t.order(ALICE, { a: BTC, b: true, p: "97000", s: "0.15", t: { limit: { tif: "Ioc" } } }),
    ).toHaveProperty("filled");
    expect(t.order(CAROL, { a: BTC, b: true, p: "96000", s: "0.01" })).toEqual({
      error: "Order would increase open interest while open interest is capped asset=0",
    });
    // Reducing is always allowed.
    expect(
      t.order(ALICE, { a: BTC, b: false, p: "96000", s: "0.05", t: { limit: { tif: "Ioc" } } }),
    ).toHaveProperty("filled");
  });

  it("bounds a position by its market's tiered margin table: ARB (10×, 5× from $3M) above 5× stops at $3M", () => {
    const ARB = 11;
    const t = testVenue({ balance: "1000000" });
    const TIER = "Order would cause position to exceed margin tier limit at current leverage asset=11";
    const leverage = (lev: number) =>
      expect(t.ex(ALICE, { type: "updateLeverage", asset: ARB, isCross: true, leverage: lev }).status).toBe(
        "ok",
      );
    leverage(10);
    // 7,000,000 ARB resting at $0.44 is $3.08M
    expect(t.order(ALICE, { a: ARB, b: true, p: "0.44", s: "7000000" })).toEqual({ error: TIER });
    expect(t.order(ALICE, { a: ARB, b: true, p: "0.44", s: "6000000" })).toHaveProperty("resting");
    leverage(5);
    expect(t.order(ALICE, { a: ARB, b: true, p: "0.44", s: "7000000" })).toHaveProperty("resting");
  });

  it("refuses a position beyond the margin tier at the current leverage", () => {
    const t = testVenue({
      limits: { BTC: { openInterestCapUsd: 1e12, maxPositionAtHighLeverageUsd: 1000 } },
    });
    expect(t.ex(ALICE, { type: "updateLeverage", asset: BTC, isCross: true, leverage: 40 }).status).toBe(
      "ok",
    );
    expect(t.order(ALICE, { a: BTC, b: true, p: "90000", s: "0.02" })).toEqual({
      error: "Order would cause position to exceed margin tier limit at current leverage asset=0",
    });
    expect(t.ex(ALICE, { type: "updateLeverage", asset: BTC, isCross: true, leverage: 20 }).status).toBe(
      "ok",
    );
    expect(t.order(ALICE, { a: BTC, b: true, p: "90000", s: "0.02" })).toHaveProperty("resting");
  });

  it("refuses a new order past the open-order limit, and reduce-only orders from 1000 on", () => {
    const t = testVenue();
    const orders = Array.from({ length: 1000 }, (_, i) => ({
      a: BTC,
      b: true,
      p: String(60000 + i),
      s: "0.0002",
      r: false,
      t: { limit: { tif: "Gtc" } },
    }));
    const r = t.ex(ALICE, { type: "order", orders, grouping: "na" });
    expect(r.status).toBe("ok");
    expect(t.venue.info({ type: "openOrders", user: ALICE })).toHaveLength(1000);
    expect(t.order(ALICE, { a: BTC, b: true, p: "59000", s: "0.0002" })).toEqual({
      error: "Too many open orders",
    });
    expect(t.order(ALICE, { a: BTC, b: false, p: "99000", s: "0.0002", r: true })).toEqual({
      error: "Too many open orders",
    });
  });
});
