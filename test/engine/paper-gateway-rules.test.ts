import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PaperGateway } from "../../src/engine/paper-gateway.ts";
import type { PlaceOutcome, PlaceRequest } from "../../src/engine/ports.ts";
import { DEFAULT_MARKETS } from "../../src/sim/venue/index.ts";
import type { MarketSnapshot } from "../../src/strategies/sdk.ts";
import { ALICE, BOB, ETH, testVenue } from "../sim/venue/helpers.ts";
import { snap } from "../strategies/helpers.ts";

/** ETH (szDecimals 4, asset 1) around 3400: BOB quotes 3399…3395 and 3401…3405, 2 ETH a level. */
const LEVELS = [1, 2, 3, 4, 5];
/** A perp the recorded universe lists as delisted (MATIC, asset 3): the exchange halts it. */
const DELISTED = DEFAULT_MARKETS.findIndex((m) => m.isDelisted);
const DELISTED_SPEC = DEFAULT_MARKETS[DELISTED]!;

function simWithBook() {
  const t = testVenue({ balance: "10000" });
  t.venue.deposit(BOB, "1000000");
  for (const d of LEVELS) {
    t.order(BOB, { a: ETH, b: true, p: String(3400 - d), s: "2" });
    t.order(BOB, { a: ETH, b: false, p: String(3400 + d), s: "2" });
  }
  return t;
}

function snapshotOf(t: ReturnType<typeof simWithBook>, timestampMs = t.clock.now): MarketSnapshot {
  const book = t.venue.info({ type: "l2Book", coin: "ETH" }) as { levels: { px: string; sz: string }[][] };
  const side = (i: 0 | 1) => book.levels[i]!.map((l) => ({ px: Number(l.px), sz: Number(l.sz) }));
  return snap({
    mid: 3400,
    bid: 3399,
    ask: 3401,
    timestampMs,
    book: { bids: side(0), asks: side(1) },
  });
}

function paperBook(t: ReturnType<typeof simWithBook>, balanceUsd = "10000"): PaperGateway {
  const g = new PaperGateway({ balanceUsd });
  g.describe("ETH-PERP", { szDecimals: 4, asset: ETH });
  g.describe("DELISTED-PERP", { szDecimals: DELISTED_SPEC.szDecimals, asset: DELISTED, delisted: true });
  g.observe(snapshotOf(t));
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
    a: o.instrument === "DELISTED-PERP" ? DELISTED : ETH,
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
});
