import { describe, expect, it } from "vitest";
import { VenueError } from "../../../src/sim/venue.ts";
import { ALICE, BOB, BTC, BUILDER, ETH, testVenue } from "./helpers.ts";

const DOGE = 12;

describe("order refusals", () => {
  it("refuses an unknown asset", () => {
    const t = testVenue();
    expect(t.order(ALICE, { a: 999, b: true, p: "1", s: "1" })).toEqual({ error: "Unknown asset 999." });
  });

  it("refuses prices with more than 5 significant figures or too many decimals, allows integers", () => {
    const t = testVenue();
    // BTC: szDecimals 5 → at most 1 decimal; 97000.5 has 6 significant figures.
    expect(t.order(ALICE, { a: BTC, b: true, p: "97000.5", s: "0.001" })).toEqual({
      error: "Order has invalid price.",
    });
    expect(t.order(ALICE, { a: BTC, b: true, p: "9700.55", s: "0.01" })).toEqual({
      error: "Order has invalid price.",
    });
    // A 5-significant-figure decimal inside the 80% band rests (ETH: 2 decimals).
    expect(t.order(ALICE, { a: ETH, b: true, p: "3400.55", s: "0.01" })).toEqual({
      error: "Order has invalid price.",
    });
    expect(t.order(ALICE, { a: ETH, b: true, p: "3400.5", s: "0.01" })).toMatchObject({ resting: {} });
    // An integer price is always allowed, whatever its significant figures.
    expect(t.order(ALICE, { a: BTC, b: true, p: "96999", s: "0.001" })).toMatchObject({ resting: {} });
    expect(t.order(ALICE, { a: BTC, b: false, p: "123456", s: "0.001" })).toMatchObject({ resting: {} });
    // DOGE: szDecimals 0 → up to 6 decimals, still 5 significant figures.
    expect(t.order(ALICE, { a: DOGE, b: true, p: "0.1700001", s: "100" })).toEqual({
      error: "Order has invalid price.",
    });
    expect(t.order(ALICE, { a: DOGE, b: true, p: "0.170001", s: "100" })).toEqual({
      error: "Order has invalid price.",
    });
    expect(t.order(ALICE, { a: DOGE, b: true, p: "0.17001", s: "100" })).toMatchObject({ resting: {} });
    expect(t.order(ALICE, { a: BTC, b: true, p: "0", s: "0.001" })).toEqual({
      error: "Order has invalid price.",
    });
    expect(t.order(ALICE, { a: BTC, b: true, p: "-5", s: "0.001" })).toEqual({
      error: "Order has invalid price.",
    });
  });

  it("refuses sizes off the lot and zero sizes", () => {
    const t = testVenue();
    expect(t.order(ALICE, { a: BTC, b: true, p: "97000", s: "0.000001" })).toEqual({
      error: "Order has invalid size.",
    });
    expect(t.order(ALICE, { a: ETH, b: true, p: "3400", s: "0.12345" })).toEqual({
      error: "Order has invalid size.",
    });
    expect(t.order(ALICE, { a: BTC, b: true, p: "97000", s: "0" })).toEqual({
      error: "Order has zero size.",
    });
    expect(t.order(ALICE, { a: BTC, b: true, p: "97000", s: "abc" })).toEqual({
      error: "Order has invalid size.",
    });
  });

  it("refuses orders below $10", () => {
    const t = testVenue();
    expect(t.order(ALICE, { a: BTC, b: true, p: "97000", s: "0.0001" })).toEqual({
      error: "Order must have minimum value of $10. asset=0",
    });
  });

  it("refuses an order the margin cannot carry (initial margin = notional / leverage)", () => {
    const t = testVenue({ balance: "1000" });
    // 20x default leverage: $1000 carries at most $20,000 of notional.
    expect(t.order(ALICE, { a: BTC, b: true, p: "90000", s: "0.23" })).toEqual({
      error: "Insufficient margin to place order. asset=0",
    });
    expect(t.order(ALICE, { a: BTC, b: true, p: "90000", s: "0.2" })).toMatchObject({ resting: {} });
    // The resting order holds its margin: a second one no longer fits.
    expect(t.order(ALICE, { a: BTC, b: true, p: "90000", s: "0.03" })).toEqual({
      error: "Insufficient margin to place order. asset=0",
    });
  });

  it("refuses a reduce-only order that would increase the position", () => {
    const t = testVenue();
    expect(t.order(ALICE, { a: BTC, b: true, p: "97000", s: "0.01", r: true })).toEqual({
      error: "Reduce only order would increase position. asset=0",
    });
  });

  it("refuses builder fees that are unapproved, above the approval, or above 0.1%", () => {
    const t = testVenue();
    expect(t.order(ALICE, { a: BTC, b: true, p: "97000", s: "0.01" }, { b: BUILDER, f: 10 })).toEqual({
      topError: "Builder fee has not been approved.",
    });
    t.ex(ALICE, { type: "approveBuilderFee", maxFeeRate: "0.01%", builder: BUILDER, nonce: 1 });
    expect(t.order(ALICE, { a: BTC, b: true, p: "97000", s: "0.01" }, { b: BUILDER, f: 11 })).toEqual({
      topError: "Builder fee has not been approved.",
    });
    t.ex(ALICE, { type: "approveBuilderFee", maxFeeRate: "1%", builder: BUILDER, nonce: 2 });
    expect(t.order(ALICE, { a: BTC, b: true, p: "97000", s: "0.01" }, { b: BUILDER, f: 101 })).toEqual({
      topError: "Builder fee exceeds the maximum of 0.1% for perps.",
    });
    expect(t.order(ALICE, { a: BTC, b: true, p: "97000", s: "0.01" }, { b: BUILDER, f: 100 })).toMatchObject({
      resting: {},
    });
  });

  it("rejects a post-only order that would cross, with the bbo in the message", () => {
    const t = testVenue();
    t.order(BOB, { a: BTC, b: false, p: "97010", s: "0.01" });
    t.order(BOB, { a: BTC, b: true, p: "96990", s: "0.01" });
    expect(t.order(ALICE, { a: BTC, b: true, p: "97010", s: "0.01", t: { limit: { tif: "Alo" } } })).toEqual({
      error: "Post only order would have immediately matched, bbo was 96990@97010. asset=0",
    });
    expect(
      t.order(ALICE, { a: BTC, b: true, p: "97009", s: "0.01", t: { limit: { tif: "Alo" } } }),
    ).toMatchObject({
      resting: {},
    });
  });

  it("cancels an Ioc that finds nothing to match", () => {
    const t = testVenue();
    t.order(BOB, { a: BTC, b: false, p: "97010", s: "0.01" });
    expect(t.order(ALICE, { a: BTC, b: true, p: "97000", s: "0.01", t: { limit: { tif: "Ioc" } } })).toEqual({
      error: "Order could not immediately match against any resting orders. asset=0",
    });
    expect(t.venue.info({ type: "openOrders", user: ALICE })).toEqual([]);
  });

  it("answers unknown actions with an err and unknown info types with VenueError", () => {
    const t = testVenue();
    expect(t.ex(ALICE, { type: "frobnicate" })).toEqual({
      status: "err",
      response: "Unsupported action type: frobnicate",
    });
    expect(() => t.venue.info({ type: "nope" })).toThrow(VenueError);
    expect(() => t.venue.info({ type: "meta", dex: "nope" })).toThrow(VenueError);
    expect(() => t.venue.info({ type: "clearinghouseState", user: "bob" })).toThrow(VenueError);
    expect(t.venue.info({ type: "l2Book", coin: "NOPE" })).toBeNull();
  });
});

describe("delisted markets", () => {
  const MATIC = 3; // delisted in the recorded mainnet universe; keeps its asset id and last price

  it("refuses an order on a delisted perp as the exchange does, whatever its price and kind", () => {
    const t = testVenue();
    const [meta, ctxs] = t.venue.info({ type: "metaAndAssetCtxs" }) as [
      { universe: { name: string; isDelisted?: boolean }[] },
      { markPx: string }[],
    ];
    expect(meta.universe[MATIC]).toMatchObject({ name: "MATIC", isDelisted: true });
    const px = ctxs[MATIC]!.markPx;
    const size = String(Math.ceil(50 / Number(px)));
    const halted = { error: "Trading is halted." };
    expect(t.order(ALICE, { a: MATIC, b: true, p: px, s: size })).toEqual(halted);
    expect(t.order(ALICE, { a: MATIC, b: false, p: px, s: size, t: { limit: { tif: "Ioc" } } })).toEqual(
      halted,
    );
    expect(
      t.order(ALICE, {
        a: MATIC,
        b: false,
        p: px,
        s: size,
        r: true,
        t: { trigger: { isMarket: true, triggerPx: px, tpsl: "sl" } },
      }),
    ).toEqual(halted);
    expect(t.state(ALICE).assetPositions).toEqual([]);
  });

  it("a market delisted while it trades: listed as delisted, new orders refused, its resting orders cancelled", () => {
    const t = testVenue();
    expect(t.order(ALICE, { a: ETH, b: true, p: "3400", s: "0.01" })).toMatchObject({ resting: {} });
    t.venue.delist("ETH");
    const meta = t.venue.info({ type: "meta" }) as { universe: { name: string; isDelisted?: boolean }[] };
    expect(meta.universe[ETH]).toMatchObject({ name: "ETH", isDelisted: true });
    expect(t.order(BOB, { a: ETH, b: false, p: "3400", s: "0.01" })).toEqual({ error: "Trading is halted." });
    expect(t.order(ALICE, { a: BTC, b: true, p: "96999", s: "0.001" })).toMatchObject({ resting: {} });
    // The ETH bid went with the delisting (test/sim/venue/delisting.test.ts); the BTC one rests.
    expect(t.venue.info({ type: "openOrders", user: ALICE })).toMatchObject([{ coin: "BTC" }]);
  });
});
