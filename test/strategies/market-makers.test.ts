import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { avellanedaMm } from "../../src/strategies/avellaneda_mm.ts";
import { defaultParams, findStrategy } from "../../src/strategies/catalog.ts";
import { engineMm } from "../../src/strategies/engine_mm.ts";
import { fundingArb } from "../../src/strategies/funding_arb.ts";
import { gridMm } from "../../src/strategies/grid_mm.ts";
import { liquidationMm } from "../../src/strategies/liquidation_mm.ts";
import { buildQuotes, initVolState, quotingParams, stepVol } from "../../src/strategies/quoting/engine.ts";
import { REGIMES, regimeMm } from "../../src/strategies/regime_mm.ts";
import { rfqAgent } from "../../src/strategies/rfq_agent.ts";
import type { AnyStrategy, DecisionContext, OrderIntent } from "../../src/strategies/sdk.ts";
import { simpleMm } from "../../src/strategies/simple_mm.ts";
import { ctx, snap } from "./helpers.ts";

const buys = (os: OrderIntent[]) => os.filter((o) => o.side === "buy");
const sells = (os: OrderIntent[]) => os.filter((o) => o.side === "sell");

function once(s: AnyStrategy, c: DecisionContext, params: Record<string, number> = {}) {
  const p = s.params.parse(params);
  return s.decide(c, p, s.init(p));
}

describe("simple_mm", () => {
  it("quotes post-only bid and ask half the spread either side of mid", () => {
    const d = once(
      simpleMm as unknown as AnyStrategy,
      ctx({ snapshot: snap({ mid: 1000, bid: 999.9, ask: 1000.1 }) }),
      { spread_bps: 100 },
    );
    expect(d.orders).toEqual([
      { side: "buy", price: 995, size: 1, tif: "Alo", tag: "mm_bid" },
      { side: "sell", price: 1005, size: 1, tif: "Alo", tag: "mm_ask" },
    ]);
  });

  it("at the inventory limit stops adding but keeps the unwinding quote", () => {
    const long = once(simpleMm as unknown as AnyStrategy, ctx({ positionQty: 10 }));
    expect(buys(long.orders)).toHaveLength(0);
    expect(sells(long.orders)).toHaveLength(1);
    const short = once(simpleMm as unknown as AnyStrategy, ctx({ positionQty: -10 }));
    expect(sells(short.orders)).toHaveLength(0);
    expect(buys(short.orders)).toHaveLength(1);
  });

  it("in reduce-only mode quotes only the unwind, capped at the position", () => {
    const d = once(
      simpleMm as unknown as AnyStrategy,
      ctx({ positionQty: 0.4, risk: { reduceOnly: true, drawdownPct: 0 } }),
    );
    expect(d.orders).toHaveLength(1);
    expect(d.orders[0]).toMatchObject({ side: "sell", size: 0.4 });
  });

  it("returns nothing without a market", () => {
    expect(once(simpleMm as unknown as AnyStrategy, ctx({ snapshot: snap({ mid: 0 }) })).orders).toEqual([]);
  });
});

describe("avellaneda_mm", () => {
  const s = avellanedaMm as unknown as AnyStrategy;
  it("first tick flat: spread from the model clamped to the min, around mid", () => {
    const d = once(s, ctx());
    // σ falls back to mid·5bps = 1.25; spread = 0.1·1.5625 + 20·ln(1+0.1/1.5) = 1.44702
    const [b, a] = d.orders;
    expect(b!.side).toBe("buy");
    expect(b!.price).toBeCloseTo(2500 - 1.44702 / 2, 4);
    expect(a!.price).toBeCloseTo(2500 + 1.44702 / 2, 4);
    expect(b!.tif).toBe("Alo");
  });

  it("long inventory lowers the reservation price and shrinks size", () => {
    const flat = once(s, ctx());
    const long = once(s, ctx({ positionQty: 5 }));
    expect(long.orders[0]!.price).toBeLessThan(flat.orders[0]!.price);
    expect(long.orders[0]!.size).toBeCloseTo(0.5, 9);
    expect(long.meta?.reservation_price).toBeCloseTo(2500 - 5 * 0.1 * 1.5625, 6);
  });

  it("size floors at 10% and the adding side stops at max_inventory", () => {
    const d = once(s, ctx({ positionQty: 12 }));
    expect(buys(d.orders)).toHaveLength(0);
    expect(sells(d.orders)[0]!.size).toBeCloseTo(0.1, 9);
  });

  it("reduce-only: long → one sell, short → one buy, flat → nothing", () => {
    const ro = { reduceOnly: true, drawdownPct: 0 };
    expect(once(s, ctx({ positionQty: 3, risk: ro })).orders.map((o) => o.side)).toEqual(["sell"]);
    expect(once(s, ctx({ positionQty: -3, risk: ro })).orders.map((o) => o.side)).toEqual(["buy"]);
    expect(once(s, ctx({ risk: ro })).orders).toEqual([]);
  });

  it("min spread clamp: 50 bps at mid 1000 with tiny gamma gives a spread of at least 5", () => {
    const d = once(s, ctx({ snapshot: snap({ mid: 1000, bid: 999.9, ask: 1000.1 }) }), {
      min_spread_bps: 50,
      gamma: 0.0001,
    });
    expect(d.orders[1]!.price - d.orders[0]!.price).toBeGreaterThanOrEqual(5 - 1e-9);
  });
});

describe("quoting engine (engine_mm family)", () => {
  const p = quotingParams.parse({});

  it("fair value is a price level: weights are normalised (predecessor quoted 0.8·mid)", () => {
    const vol = stepVol(initVolState(), 2500, 0, 10, 30).vol;
    const r = buildQuotes(p, { snapshot: snap({ bid: 2499, ask: 2501 }), inventory: 0, drawdownPct: 0, vol });
    expect(r.fvRaw).toBeCloseTo(2500, 6);
    // first tick: 30 % annual fallback → II_normal; h = (fee 0.25 + σ_price)·sqrt(1.5)
    expect(vol.bin).toBe("II_normal");
    const sigmaPrice = (0.3 / Math.sqrt((365 * 24 * 3600) / 10)) * 2500;
    expect(vol.sigmaPrice).toBeCloseTo(sigmaPrice, 9);
    expect(r.halfSpread).toBeCloseTo((0.25 + sigmaPrice) * Math.sqrt(1.5), 6);
    expect(r.levels.map((l) => l.bidSize)).toEqual([1, Math.exp(-0.5), Math.exp(-1)]);
  });

  it("inventory skews fair value down and sizes toward the unwind", () => {
    const vol = stepVol(initVolState(), 2500, 0, 10, 30).vol;
    const r = buildQuotes(p, { snapshot: snap({ bid: 2499, ask: 2501 }), inventory: 5, drawdownPct: 0, vol });
    expect(r.fvSkewed).toBeCloseTo(2500 - 0.5 * 0.5 * vol.sigmaPrice, 6);
    expect(r.levels[0]!.bidSize).toBeCloseTo(0.85, 9);
    expect(r.levels[0]!.askSize).toBeCloseTo(1.15, 9);
  });

  it("at the inventory limit only the unwinding side is quoted (predecessor halted, unwinds included)", () => {
    const d = once(engineMm as unknown as AnyStrategy, ctx({ positionQty: 10 }));
    expect(d.orders.length).toBeGreaterThan(0);
    expect(d.orders.every((o) => o.side === "sell")).toBe(true);
    expect(d.orders.reduce((a, o) => a + o.size, 0)).toBeLessThanOrEqual(10);
  });

  it("drawdown bands widen the spread and switch to unwind-only from orange up", () => {
    const vol = stepVol(initVolState(), 2500, 0, 10, 30).vol;
    const green = buildQuotes(p, { snapshot: snap(), inventory: 0, drawdownPct: 0, vol });
    const yellow = buildQuotes(p, { snapshot: snap(), inventory: 0, drawdownPct: 1, vol });
    const orange = buildQuotes(p, { snapshot: snap(), inventory: 0, drawdownPct: 2, vol });
    expect(yellow.halfSpread).toBeGreaterThan(green.halfSpread);
    expect(orange.reduceOnly).toBe(true);
    const d = once(
      engineMm as unknown as AnyStrategy,
      ctx({ positionQty: 2, risk: { reduceOnly: false, drawdownPct: 2 } }),
    );
    expect(d.orders.every((o) => o.side === "sell")).toBe(true);
  });

  it("vol bins annualise with the real time between samples", () => {
    let st = initVolState();
    // ±10 bps moves every 10 s: σ_ann ≈ 0.002·sqrt(3.15e6) ≈ 3.5 → IV_extreme; once a day → ≈ 0.04 → I_low
    let fast = "";
    for (let i = 0; i < 10; i++) {
      const r = stepVol(st, 2500 * (1 + (i % 2 ? 0.001 : -0.001)), i * 10_000, 10, 30);
      st = r.state;
      fast = r.vol.bin;
    }
    expect(fast).toBe("IV_extreme");
    st = initVolState();
    let slow = "";
    for (let i = 0; i < 10; i++) {
      const r = stepVol(st, 2500 * (1 + (i % 2 ? 0.001 : -0.001)), i * 86_400_000, 10, 30);
      st = r.state;
      slow = r.vol.bin;
    }
    expect(slow).toBe("I_low");
  });

  it("regime_mm applies the detected regime's depth and size on the same tick", () => {
    const d = once(regimeMm as unknown as AnyStrategy, ctx());
    expect(d.meta?.regime).toBe("II_normal");
    expect(buys(d.orders)).toHaveLength(REGIMES.II_normal.levels);
    let st = regimeMm.init(regimeMm.params.parse({}));
    let last = regimeMm.decide(ctx(), regimeMm.params.parse({}), st);
    for (let i = 1; i < 8; i++) {
      st = last.state;
      const mid = 2500 * (1 + (i % 2 ? 0.01 : -0.01));
      last = regimeMm.decide(
        ctx({ snapshot: snap({ mid, timestampMs: 1_800_000_000_000 + i * 10_000 }) }),
        regimeMm.params.parse({}),
        st,
      );
    }
    expect(last.meta?.regime).toBe("IV_extreme");
    expect(last.orders).toEqual([]); // flat in IV_extreme: nothing to unwind, nothing opened
  });

  it("regime_mm offers no spread-bound or depth params: its regime table sets them, an override would do nothing", async () => {
    const { resolveParams } = await import("../../src/engine/runner.ts");
    const params = Object.keys(regimeMm.params.parse({}));
    for (const gone of ["min_spread_bps", "max_spread_bps", "num_levels"]) expect(params).not.toContain(gone);
    expect(() => resolveParams(regimeMm as unknown as AnyStrategy, { num_levels: 5 })).toThrow(
      /^regime_mm has no param num_levels/,
    );
  });

  it("liquidation_mm: an OI drop widens the spread and keeps full size on the absorbing side once", () => {
    const s = liquidationMm;
    const p0 = s.params.parse({});
    const t1 = s.decide(ctx({ snapshot: snap({ mid: 2500, openInterest: 1000 }) }), p0, s.init(p0));
    const t2 = s.decide(
      ctx({
        snapshot: snap({
          mid: 2490,
          bid: 2489.75,
          ask: 2490.25,
          openInterest: 940,
          timestampMs: 1_800_000_010_000,
        }),
      }),
      p0,
      t1.state,
    );
    expect(t2.meta).toMatchObject({ liq_triggered: true, in_cascade: true, cascade_direction: "down" });
    const bid0 = buys(t2.orders)[0]!;
    const ask0 = sells(t2.orders)[0]!;
    expect(bid0.size).toBeCloseTo(1, 9);
    expect(ask0.size).toBeCloseTo(0.4, 9);
    expect(t2.orders.map((o) => o.tag)).toContain("liq_bid");
    expect(Number(t2.meta?.half_spread)).toBeGreaterThan(Number(t1.meta?.half_spread) * 2);
    // stable OI → no cascade
    const calm = s.decide(
      ctx({ snapshot: snap({ openInterest: 1000, timestampMs: 1_800_000_010_000 }) }),
      p0,
      t1.state,
    );
    expect(calm.meta?.in_cascade).toBe(false);
  });

  it("funding_arb leans short when funding is richer than the other venues", () => {
    const p0 = fundingArb.params.parse({});
    const neutral = fundingArb.decide(ctx(), p0, fundingArb.init(p0));
    const rich = fundingArb.decide(
      ctx({ snapshot: snap({ fundingRate: 0.0005, referenceFunding: { binance: 0.0001, bybit: 0.0001 } }) }),
      p0,
      fundingArb.init(p0),
    );
    expect(rich.meta?.divergence_bps).toBeCloseTo(4, 9);
    expect(rich.meta?.bias_bps).toBeCloseTo(1.6, 9);
    expect(buys(rich.orders)[0]!.price).toBeLessThan(buys(neutral.orders)[0]!.price);
    expect(sells(rich.orders)[0]!.size).toBeGreaterThan(buys(rich.orders)[0]!.size);
  });
});

describe("grid_mm", () => {
  const s = gridMm as unknown as AnyStrategy;
  it("places resting levels on a fixed lattice around mid", () => {
    const d = once(s, ctx({ snapshot: snap({ mid: 1000, bid: 999.9, ask: 1000.1 }) }), { num_levels: 2 });
    expect(d.orders.map((o) => [o.side, o.price, o.tif])).toEqual([
      ["buy", 999, "Gtc"],
      ["sell", 1001, "Gtc"],
      ["buy", 998, "Gtc"],
      ["sell", 1002, "Gtc"],
    ]);
  });

  it("levels stay on the lattice when mid moves (unchanged levels keep their price)", () => {
    const p = gridMm.params.parse({ num_levels: 2 });
    const t1 = gridMm.decide(ctx({ snapshot: snap({ mid: 1000 }) }), p, gridMm.init(p));
    const t2 = gridMm.decide(ctx({ snapshot: snap({ mid: 1000.3 }) }), p, t1.state);
    expect(t2.orders.map((o) => [o.side, o.price])).toEqual([
      ["buy", 1000],
      ["sell", 1001],
      ["buy", 999],
      ["sell", 1002],
    ]);
  });

  it("cumulative position check: bids together never exceed max_position", () => {
    const d = once(s, ctx({ positionQty: 4 }));
    expect(buys(d.orders).reduce((a, o) => a + o.size, 0)).toBeCloseTo(1, 9);
    expect(
      once(s, ctx({ positionQty: 4.6 }))
        .orders.filter((o) => o.side === "buy")
        .reduce((a, o) => a + o.size, 0),
    ).toBeCloseTo(0.4, 9);
  });

  it("reduce-only: only the unwinding side, up to the position", () => {
    const d = once(s, ctx({ positionQty: 1, risk: { reduceOnly: true, drawdownPct: 0 } }));
    expect(d.orders.every((o) => o.side === "sell")).toBe(true);
    expect(d.orders.reduce((a, o) => a + o.size, 0)).toBeCloseTo(1, 9);
  });
});

describe("rfq_agent", () => {
  const s = rfqAgent as unknown as AnyStrategy;
  it("rests block quotes at mid ± half spread", () => {
    const d = once(s, ctx({ snapshot: snap({ mid: 1000, bid: 999.9, ask: 1000.1 }) }), { spread_bps: 100 });
    expect(d.orders.map((o) => [o.side, o.price, o.size, o.tif, o.tag])).toEqual([
      ["buy", 995, 0.5, "Gtc", "rfq_bid"],
      ["sell", 1005, 0.5, "Gtc", "rfq_ask"],
    ]);
  });
  it("a full book still quotes the unwind (predecessor went silent)", () => {
    const d = once(s, ctx({ positionQty: 15 }));
    expect(d.orders.map((o) => o.side)).toEqual(["sell"]);
  });
});

/** Every market maker, any mid and inventory within limits: quotes sit around mid and never cross the book. */
describe("property: market-maker quotes are passive and around fair value", () => {
  const mms = [
    "simple_mm",
    "avellaneda_mm",
    "engine_mm",
    "regime_mm",
    "grid_mm",
    "liquidation_mm",
    "funding_arb",
    "rfq_agent",
  ];
  for (const id of mms) {
    it(id, () => {
      const s = findStrategy(id)!;
      const p = defaultParams(s);
      fc.assert(
        fc.property(
          fc.double({ min: 0.001, max: 200_000, noNaN: true }),
          fc.double({ min: 0.2, max: 20, noNaN: true }),
          fc.double({ min: -9.9, max: 9.9, noNaN: true }),
          (mid, spreadBps, q) => {
            const half = (mid * spreadBps) / 20_000;
            const c = ctx({ snapshot: snap({ mid, bid: mid - half, ask: mid + half }), positionQty: q });
            const d = s.decide(c, p, s.init(p));
            for (const o of d.orders) {
              expect(o.tif === "Alo" || o.tif === "Gtc").toBe(true);
              if (o.side === "buy") expect(o.price).toBeLessThan(mid + half);
              else expect(o.price).toBeGreaterThan(mid - half);
              // around fair value: within 5 % of mid (the predecessor's 0.8·mid is 20 % off)
              expect(Math.abs(o.price - mid) / mid).toBeLessThan(0.05);
              expect(o.size).toBeGreaterThan(0);
            }
          },
        ),
        { numRuns: 200 },
      );
    });
  }
});
