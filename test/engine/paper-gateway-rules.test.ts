import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { D } from "../../src/core/decimal.ts";
import { PaperGateway } from "../../src/engine/paper-gateway.ts";
import type { PlaceOutcome, PlaceRequest } from "../../src/engine/ports.ts";
import { DEFAULT_MARKETS } from "../../src/sim/venue/index.ts";
import type { MarketSnapshot } from "../../src/strategies/sdk.ts";
import { ALICE, BOB, ETH, TEST_MARKETS, testVenue } from "../sim/venue/helpers.ts";
import { snap } from "../strategies/helpers.ts";

/** ETH (szDecimals 4, asset 1) around 3400: BOB quotes 3399…3395 and 3401…3405, 2 ETH a level. */
const LEVELS = [1, 2, 3, 4, 5];
/** A perp the recorded universe lists as delisted (MATIC, asset 3): the exchange halts it. */
const DELISTED = DEFAULT_MARKETS.findIndex((m) => m.isDelisted);
const DELISTED_SPEC = DEFAULT_MARKETS[DELISTED]!;

/** MON: onlyIsolated (strict), szDecimals 0, at most 3×; here at 0.05 with BOB quoting 40,000 a level, a tick of 0.0001 apart. */
const MON = DEFAULT_MARKETS.findIndex((m) => m.name === "MON");
const MON_SPEC = DEFAULT_MARKETS[MON]!;
const ETH_SPEC = DEFAULT_MARKETS[ETH]!;
const marginOf = (m: (typeof DEFAULT_MARKETS)[number]) => ({
  maxLeverage: m.maxLeverage,
  ...(m.marginTableId !== undefined ? { marginTableId: m.marginTableId } : {}),
});
const MARKETS = TEST_MARKETS.map((m) => (m.name === "MON" ? { ...m, startPx: "0.05" } : m));

function simWithBook() {
  const t = testVenue({ balance: "10000" });
  t.venue.deposit(BOB, "1000000");
  for (const d of LEVELS) {
    t.order(BOB, { a: ETH, b: true, p: String(3400 - d), s: "2" });
    t.order(BOB, { a: ETH, b: false, p: String(3400 + d), s: "2" });
  }
  return t;
}

/** ETH's book as above, and MON's. */
function simWithBooks(balance: string) {
  const t = testVenue({ balance, markets: MARKETS });
  t.venue.deposit(BOB, "1000000");
  // MON is isolated only: at 1× the maker's positions outlive any move the scenarios make (at its
  // default 3× a +15 % move liquidated it, and its quotes with it).
  t.ex(BOB, { type: "updateLeverage", asset: MON, isCross: false, leverage: 1 });
  for (const d of LEVELS) {
    t.order(BOB, { a: ETH, b: true, p: String(3400 - d), s: "2" });
    t.order(BOB, { a: ETH, b: false, p: String(3400 + d), s: "2" });
    t.order(BOB, { a: MON, b: true, p: (0.05 - d / 10_000).toFixed(4), s: "40000" });
    t.order(BOB, { a: MON, b: false, p: (0.05 + d / 10_000).toFixed(4), s: "40000" });
  }
  return t;
}

interface OpenOrder {
  coin: string;
  side: "B" | "A";
  limitPx: string;
  sz: string;
}

function snapshotOf(
  t: ReturnType<typeof simWithBook>,
  timestampMs = t.clock.now,
  coin = "ETH",
  mid = coin === "ETH" ? 3400 : 0.05,
): MarketSnapshot {
  const book = t.venue.info({ type: "l2Book", coin }) as { levels: { px: string; sz: string }[][] };
  // The market as a dry run reads it: ALICE's orders are the paper book's own, not the market's.
  const own = (t.venue.info({ type: "openOrders", user: ALICE }) as OpenOrder[]).filter(
    (o) => o.coin === coin,
  );
  const side = (i: 0 | 1) =>
    book.levels[i]!.map((l) => {
      let sz = new D(l.sz);
      for (const o of own) if ((o.side === "B") === (i === 0) && o.limitPx === l.px) sz = sz.minus(o.sz);
      return { px: Number(l.px), sz: sz.toNumber() };
    }).filter((l) => l.sz > 0);
  return snap({
    instrument: `${coin}-PERP`,
    mid,
    bid: side(0)[0]?.px ?? 0,
    ask: side(1)[0]?.px ?? 0,
    timestampMs,
    book: { bids: side(0), asks: side(1) },
  });
}

function paperBook(
  t: ReturnType<typeof simWithBook>,
  balanceUsd = "10000",
  margin: { leverage?: number; isolated?: boolean } = {},
): PaperGateway {
  const g = new PaperGateway({ balanceUsd, ...margin });
  // With the markets' leverage and margin tables (as `hl run --dry-run` describes them): it liquidates.
  g.describe("ETH-PERP", { szDecimals: 4, asset: ETH, ...marginOf(ETH_SPEC) });
  g.describe("MON-PERP", { szDecimals: MON_SPEC.szDecimals, asset: MON, ...marginOf(MON_SPEC) });
  g.describe("DELISTED-PERP", { szDecimals: DELISTED_SPEC.szDecimals, asset: DELISTED, delisted: true });
  g.observe(snapshotOf(t));
  if (
    t.venue.markets()[MON] &&
    (t.venue.info({ type: "l2Book", coin: "MON" }) as { levels: unknown[][] }).levels[0]!.length > 0
  )
    g.observe(snapshotOf(t, t.clock.now, "MON"));
  return g;
}

const req = (over: Partial<PlaceRequest> & Pick<PlaceRequest, "side" | "price" | "size">): PlaceRequest => ({
  instrument: "ETH-PERP",
  cloid: "0x00000000000000000000000000000001",
  tif: "Gtc",
  reduceOnly: false,
  ...over,
});

/** The sim venue's answer to the same order, in the gateway's terms. */
function simOutcome(t: ReturnType<typeof simWithBook>, o: PlaceRequest): PlaceOutcome {
  const r = t.order(ALICE, {
    a: o.instrument === "DELISTED-PERP" ? DELISTED : o.instrument === "MON-PERP" ? MON : ETH,
    b: o.side === "buy",
    p: o.price,
    s: o.size,
    r: o.reduceOnly,
    t: { limit: { tif: o.tif } },
  }) as { resting?: { oid: number }; filled?: { oid: number }; error?: string };
  if (r.error !== undefined) return { status: "rejected", message: r.error };
  return { status: r.resting ? "resting" : "filled", oid: "" };
}

const outcome = (o: PlaceOutcome) =>
  o.status === "rejected" ? { status: o.status, message: o.message } : { status: o.status };

describe("the dry-run book refuses what the exchange refuses (the sim venue's rules)", () => {
  it("refuses a $680k IOC the paper balance cannot margin", async () => {
    const g = paperBook(simWithBook());
    const [r] = await g.place([req({ side: "buy", price: "3405", size: "200", tif: "Ioc" })]);
    expect(r).toEqual({ status: "rejected", message: "Insufficient margin to place order. asset=1" });
  });

  it("refuses an off-tick price and an off-lot size", async () => {
    const g = paperBook(simWithBook());
    expect(await g.place([req({ side: "buy", price: "3399.123", size: "1" })])).toEqual([
      { status: "rejected", message: "Order has invalid price." },
    ]);
    expect(await g.place([req({ side: "buy", price: "3399", size: "0.00001" })])).toEqual([
      { status: "rejected", message: "Order has invalid size." },
    ]);
  });

  it("refuses a bid at 10 % of the mid (the 80 % price band)", async () => {
    const g = paperBook(simWithBook());
    expect(await g.place([req({ side: "buy", price: "340", size: "1" })])).toEqual([
      { status: "rejected", message: "Order price cannot be more than 80% away from the reference price" },
    ]);
  });

  it("pays hourly funding on the open position at the rate the market data shows", async () => {
    const t = simWithBook();
    const g = paperBook(t);
    await g.place([req({ side: "buy", price: "3401", size: "1", tif: "Ioc" })]);
    const before = g.balance();
    const hour = 3_600_000;
    const start = Math.floor(t.clock.now / hour) * hour;
    g.observe({ ...snapshotOf(t, start + hour - 1), fundingRate: 0.0001 });
    expect(g.balance()).toBe(before);
    g.observe({ ...snapshotOf(t, start + hour), fundingRate: 0.0001 });
    // A 1 ETH long pays 1 × 3400 × 0.0001.
    expect(g.fundings()).toEqual([
      { instrument: "ETH-PERP", timeMs: start + hour, usdc: "-0.34", fundingRate: 0.0001 },
    ]);
    expect(Number(g.balance())).toBeCloseTo(Number(before) - 0.34, 6);
  });

  it("refuses any order on a delisted market as the exchange halts it, market data or not", async () => {
    const g = paperBook(simWithBook());
    const o = req({ instrument: "DELISTED-PERP", side: "buy", price: "0.5", size: "100", tif: "Ioc" });
    expect(await g.place([o])).toEqual([{ status: "rejected", message: "Trading is halted." }]);
  });

  it("agrees with the sim venue on accepting or refusing any order, and on the refusal text", async () => {
    // Mostly orders the exchange takes, with every kind of refusal mixed in.
    const price = fc.oneof(
      { arbitrary: fc.integer({ min: 3380, max: 3420 }).map(String), weight: 4 },
      { arbitrary: fc.integer({ min: 33_800, max: 34_200 }).map((c) => (c / 10).toString()), weight: 4 },
      // More than 5 significant figures: off the tick.
      { arbitrary: fc.integer({ min: 338_000, max: 342_000 }).map((c) => (c / 100).toString()), weight: 1 },
      { arbitrary: fc.constantFrom("340", "680", "6200", "1", "0.5"), weight: 1 },
    );
    const size = fc.oneof(
      { arbitrary: fc.integer({ min: 1, max: 40_000 }).map((l) => (l / 10_000).toString()), weight: 6 },
      { arbitrary: fc.integer({ min: 1, max: 400 }).map(String), weight: 2 },
      { arbitrary: fc.integer({ min: 1, max: 99 }).map((l) => (l / 100_000).toString()), weight: 1 },
      { arbitrary: fc.constant("0"), weight: 1 },
    );
    const order = fc.record({
      side: fc.constantFrom("buy" as const, "sell" as const),
      price,
      size,
      tif: fc.constantFrom("Gtc" as const, "Ioc" as const, "Alo" as const),
      reduceOnly: fc.constantFrom(false, false, false, true),
      // One order in ten goes to a delisted market.
      instrument: fc.constantFrom(...Array(9).fill("ETH-PERP"), "DELISTED-PERP"),
    });
    await fc.assert(
      fc.asyncProperty(order, async (o) => {
        const t = simWithBook();
        const g = paperBook(t);
        const [paper] = await g.place([req(o)]);
        expect(outcome(paper!)).toEqual(outcome(simOutcome(t, req(o))));
      }),
      { numRuns: 200, seed: 25 },
    );
  });

  it("agrees with the sim venue on isolated positions and onlyIsolated markets (margin held, released, and checked)", async () => {
    const price = (market: string) =>
      market === "MON-PERP"
        ? fc.oneof(
            {
              arbitrary: fc.integer({ min: 49_000, max: 51_000 }).map((c) => (c / 1e6).toString()),
              weight: 8,
            },
            // Seven decimals: off the tick.
            {
              arbitrary: fc.integer({ min: 490_000, max: 510_000 }).map((c) => (c / 1e7).toString()),
              weight: 1,
            },
          )
        : fc.oneof(
            { arbitrary: fc.integer({ min: 3380, max: 3420 }).map(String), weight: 8 },
            {
              arbitrary: fc.integer({ min: 338_000, max: 342_000 }).map((c) => (c / 100).toString()),
              weight: 1,
            },
          );
    const size = (market: string) =>
      market === "MON-PERP"
        ? fc.oneof(
            { arbitrary: fc.integer({ min: 1, max: 200_000 }).map(String), weight: 8 },
            { arbitrary: fc.constantFrom("0.5", "0"), weight: 1 },
          )
        : fc.oneof(
            {
              arbitrary: fc.integer({ min: 1, max: 200_000 }).map((l) => (l / 10_000).toString()),
              weight: 8,
            },
            { arbitrary: fc.constantFrom("0.00001", "0"), weight: 1 },
          );
    const order = (market: string) =>
      fc.record({
        instrument: fc.constant(market),
        side: fc.constantFrom("buy" as const, "sell" as const),
        price: price(market),
        size: size(market),
        tif: fc.constantFrom("Gtc" as const, "Ioc" as const, "Alo" as const),
        reduceOnly: fc.constantFrom(false, false, true),
      });
    const taker = (market: string) =>
      fc
        .record({
          instrument: fc.constant(market),
          side: fc.constantFrom("buy" as const, "sell" as const),
          size:
            market === "MON-PERP"
              ? fc.integer({ min: 200, max: 150_000 }).map(String)
              : fc.integer({ min: 30, max: 30_000 }).map((l) => (l / 10_000).toString()),
          tif: fc.constant("Ioc" as const),
          reduceOnly: fc.constantFrom(false, false, false, true),
        })
        .map((o) => ({
          ...o,
          price:
            market === "MON-PERP"
              ? o.side === "buy"
                ? "0.0506"
                : "0.0494"
              : o.side === "buy"
                ? "3406"
                : "3394",
        }));
    // Inside the spread or at the first levels, resting or crossing: own orders to meet later.
    const nearTouch = (market: string) =>
      fc.record({
        instrument: fc.constant(market),
        side: fc.constantFrom("buy" as const, "sell" as const),
        price:
          market === "MON-PERP"
            ? fc.integer({ min: 498, max: 502 }).map((c) => (c / 10_000).toString())
            : fc.integer({ min: 6797, max: 6803 }).map((c) => (c / 2).toString()),
        size:
          market === "MON-PERP"
            ? fc.integer({ min: 200, max: 100_000 }).map(String)
            : fc.integer({ min: 30, max: 30_000 }).map((l) => (l / 10_000).toString()),
        tif: fc.constantFrom("Gtc" as const, "Gtc" as const, "Alo" as const, "Ioc" as const),
        reduceOnly: fc.constantFrom(false, false, false, true),
      });
    const scenario = fc.constantFrom("ETH-PERP", "MON-PERP").chain((market) =>
      fc.record({
        market: fc.constant(market),
        // ETH may be either (the account's setting); MON only allows isolated.
        isolated: market === "MON-PERP" ? fc.constant(true) : fc.boolean(),
        // Low leverage on a small account: positions the book can fill use most of the collateral.
        leverage: fc.integer({ min: 1, max: 5 }),
        // Before the last order: IOCs through the book open, add to, reduce or flip a position, and
        // orders of its own rest near the touch, where later orders meet them.
        before: fc.array(
          fc.oneof({ arbitrary: taker(market), weight: 2 }, { arbitrary: nearTouch(market), weight: 1 }),
          { minLength: 1, maxLength: 4 },
        ),
        // Then the oracle (the sim's mark, the paper book's mid) moves: a cross position's PnL frees or
        // takes collateral, an isolated one's does not.
        movePct: fc.integer({ min: -15, max: 15 }),
        last: order(market),
      }),
    );
    await fc.assert(
      fc.asyncProperty(scenario, async (sc) => {
        const t = simWithBooks("2000");
        const asset = sc.market === "MON-PERP" ? MON : ETH;
        const leverage = Math.min(sc.leverage, sc.market === "MON-PERP" ? MON_SPEC.maxLeverage : 5);
        const set = t.ex(ALICE, { type: "updateLeverage", asset, isCross: !sc.isolated, leverage });
        expect(set.status).toBe("ok");
        const g = paperBook(t, "2000", { leverage, isolated: sc.isolated });
        for (const o of sc.before) {
          const [paper] = await g.place([req(o)]);
          expect(outcome(paper!)).toEqual(outcome(simOutcome(t, req(o))));
        }
        const coin = sc.market === "MON-PERP" ? "MON" : "ETH";
        const moved = (coin === "ETH" ? 3400 : 0.05) * (1 + sc.movePct / 100);
        const mark = coin === "ETH" ? moved.toFixed(1) : moved.toPrecision(5);
        t.venue.setOraclePrice(coin, mark);
        // Both check the mark against maintenance: the sim as its clock advances, the paper book as
        // it reads the book (as it was) at the mark the sim acted on.
        const book = snapshotOf(t, t.clock.now, coin, Number(mark));
        t.clock.now += 1_000;
        t.venue.advance(t.clock.now);
        const [, ctxs] = t.venue.info({ type: "metaAndAssetCtxs" }) as [unknown, { markPx: string }[]];
        const liquidatedAt = (
          t.venue.info({ type: "userFills", user: ALICE }) as {
            liquidation?: { markPx: string };
          }[]
        ).find((f) => f.liquidation)?.liquidation?.markPx;
        g.observe({ ...book, timestampMs: t.clock.now, mid: Number(liquidatedAt ?? ctxs[asset]!.markPx) });
        expect((await g.position(sc.market)).qty).toBe(
          t.state(ALICE).assetPositions.find((p) => p.position.coin === coin)?.position.szi ?? "0",
        );
        expect(await openOnPaper(g, sc.market)).toEqual(openOnSim(t, coin));
        const [paper] = await g.place([req(sc.last)]);
        expect(outcome(paper!)).toEqual(outcome(simOutcome(t, req(sc.last))));
        expect(await openOnPaper(g, sc.market)).toEqual(openOnSim(t, coin));
      }),
      { numRuns: 150, seed: 26 },
    );
  });

  describe("its own resting orders, as the exchange's self-trade prevention meets them", () => {
    /** Place on both; both answers. */
    const both = async (t: ReturnType<typeof simWithBook>, g: PaperGateway, o: PlaceRequest) => {
      const [paper] = await g.place([o]);
      return { paper: outcome(paper!), sim: outcome(simOutcome(t, o)) };
    };

    it("refuses a post-only order that would cross its own resting order, with its price in the bbo", async () => {
      const t = simWithBook();
      const g = paperBook(t);
      expect(await both(t, g, req({ side: "buy", price: "3400.5", size: "1" }))).toEqual({
        paper: { status: "resting" },
        sim: { status: "resting" },
      });
      const refused = {
        status: "rejected",
        message: "Post only order would have immediately matched, bbo was 3400.5@3401. asset=1",
      };
      expect(await both(t, g, req({ side: "sell", price: "3400.5", size: "1", tif: "Alo" }))).toEqual({
        paper: refused,
        sim: refused,
      });
      expect(await openOnPaper(g, "ETH-PERP")).toEqual(openOnSim(t, "ETH"));
    });

    it("an IOC reaching its own resting order cancels that order and trades on behind it, never with it", async () => {
      const t = simWithBook();
      const g = paperBook(t);
      await both(t, g, req({ side: "sell", price: "3400.5", size: "1" }));
      // Nothing but its own order to meet: the order is cancelled, and the IOC finds nothing.
      const noMatch = {
        status: "rejected",
        message: "Order could not immediately match against any resting orders. asset=1",
      };
      expect(await both(t, g, req({ side: "buy", price: "3400.5", size: "1", tif: "Ioc" }))).toEqual({
        paper: noMatch,
        sim: noMatch,
      });
      expect(await openOnPaper(g, "ETH-PERP")).toEqual([]);
      expect(openOnSim(t, "ETH")).toEqual([]);
      await both(t, g, req({ side: "sell", price: "3400.5", size: "1" }));
      expect(await both(t, g, req({ side: "buy", price: "3401", size: "2", tif: "Ioc" }))).toEqual({
        paper: { status: "filled" },
        sim: { status: "filled" },
      });
      expect((await g.fills("ETH-PERP", 0)).map((f) => [f.price, f.size])).toEqual([["3401", "2"]]);
      expect(await openOnPaper(g, "ETH-PERP")).toEqual([]);
      expect(openOnSim(t, "ETH")).toEqual([]);
    });

    it("its order queued behind others at a price is cancelled only when a taker gets to it", async () => {
      const t = simWithBook();
      const g = paperBook(t);
      // Behind the 2 ETH already offered at 3401.
      await both(t, g, req({ side: "sell", price: "3401", size: "1" }));
      expect(await both(t, g, req({ side: "buy", price: "3401", size: "1", tif: "Ioc" }))).toEqual({
        paper: { status: "filled" },
        sim: { status: "filled" },
      });
      expect(await openOnPaper(g, "ETH-PERP")).toEqual([{ side: "sell", price: 3401, size: 1 }]);
      expect(openOnSim(t, "ETH")).toEqual([{ side: "sell", price: 3401, size: 1 }]);
      // The last ETH ahead of it trades, it is cancelled, the rest fills at 3402.
      expect(await both(t, g, req({ side: "buy", price: "3402", size: "3", tif: "Gtc" }))).toEqual({
        paper: { status: "filled" },
        sim: { status: "filled" },
      });
      expect((await g.fills("ETH-PERP", 0)).map((f) => [f.price, f.size])).toEqual([
        ["3401", "1"],
        ["3401", "1"],
        ["3402", "2"],
      ]);
      expect(await openOnPaper(g, "ETH-PERP")).toEqual([]);
      expect(openOnSim(t, "ETH")).toEqual([]);
    });

    it("agrees with the sim venue on any sequence of orders that meet each other: answers, open orders, position", async () => {
      const order = fc.record({
        side: fc.constantFrom("buy" as const, "sell" as const),
        // 3398 to 3402 by halves: inside the spread, at BOB's first levels, through them.
        price: fc.integer({ min: 6796, max: 6804 }).map((c) => (c / 2).toString()),
        size: fc.oneof(
          { arbitrary: fc.integer({ min: 30, max: 40_000 }).map((l) => (l / 10_000).toString()), weight: 8 },
          { arbitrary: fc.constantFrom("0.001", "5"), weight: 1 },
        ),
        tif: fc.constantFrom("Gtc" as const, "Gtc" as const, "Alo" as const, "Ioc" as const),
        reduceOnly: fc.constantFrom(false, false, false, false, true),
      });
      await fc.assert(
        fc.asyncProperty(fc.array(order, { minLength: 2, maxLength: 6 }), async (orders) => {
          const t = simWithBook();
          const g = paperBook(t);
          for (const o of orders) {
            const r = await both(t, g, req(o));
            expect(r.paper).toEqual(r.sim);
          }
          expect(await openOnPaper(g, "ETH-PERP")).toEqual(openOnSim(t, "ETH"));
          expect((await g.position("ETH-PERP")).qty).toBe(
            t.state(ALICE).assetPositions.find((p) => p.position.coin === "ETH")?.position.szi ?? "0",
          );
        }),
        { numRuns: 150, seed: 27 },
      );
    });
  });
});

/** The paper book's open orders on an instrument, oldest first. */
async function openOnPaper(g: PaperGateway, instrument: string) {
  return (await g.openOrders(instrument)).map((o) => ({
    side: o.side,
    price: Number(o.price),
    size: Number(o.size),
  }));
}

/** ALICE's open orders on the sim venue on a coin, oldest first. */
function openOnSim(t: ReturnType<typeof simWithBook>, coin: string) {
  return (t.venue.info({ type: "openOrders", user: ALICE }) as (OpenOrder & { oid: number })[])
    .filter((o) => o.coin === coin)
    .sort((a, b) => a.oid - b.oid)
    .map((o) => ({ side: o.side === "B" ? "buy" : "sell", price: Number(o.limitPx), size: Number(o.sz) }));
}
