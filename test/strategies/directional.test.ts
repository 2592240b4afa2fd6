import { describe, expect, it } from "vitest";
import { aggressiveTaker } from "../../src/strategies/aggressive_taker.ts";
import { basisArb } from "../../src/strategies/basis_arb.ts";
import { hedgeAgent } from "../../src/strategies/hedge_agent.ts";
import { meanReversion } from "../../src/strategies/mean_reversion.ts";
import { momentumBreakout } from "../../src/strategies/momentum_breakout.ts";
import type { DecisionContext, StrategyDef } from "../../src/strategies/sdk.ts";
import { ctx, snap } from "./helpers.ts";

/** Runs a strategy over a sequence of contexts, threading its state; returns every decision. */
function run<P extends Record<string, number>, S>(
  s: StrategyDef<P, S>,
  params: Partial<P>,
  cs: DecisionContext[],
) {
  const p = s.params.parse(params);
  let st = s.init(p);
  return cs.map((c) => {
    const d = s.decide(c, p, st);
    st = d.state;
    return d;
  });
}

const at = (mid: number, over: Parameters<typeof snap>[0] = {}) => ctx({ snapshot: snap({ mid, ...over }) });

describe("mean_reversion", () => {
  it("waits for a full window, then sells an overbought deviation at the bid", () => {
    const ds = run(
      meanReversion,
      { window: 5, threshold_bps: 10, size: 3 },
      [2500, 2500, 2500, 2500, 2510].map((m) => at(m)),
    );
    expect(ds.slice(0, 4).every((d) => d.orders.length === 0)).toBe(true);
    expect(ds[4]!.orders).toEqual([{ side: "sell", price: 2509.75, size: 3, tif: "Ioc", tag: "overbought" }]);
    expect(ds[4]!.meta?.deviation_bps).toBeCloseTo(((2510 - 2502) / 2502) * 10_000, 6);
  });

  it("buys an oversold deviation; inside the threshold does nothing", () => {
    const down = run(
      meanReversion,
      { window: 5, threshold_bps: 10 },
      [2500, 2500, 2500, 2500, 2490].map((m) => at(m)),
    );
    expect(down[4]!.orders[0]).toMatchObject({ side: "buy", tag: "oversold" });
    const calm = run(
      meanReversion,
      { window: 5, threshold_bps: 100 },
      [2500, 2500, 2500, 2500, 2501].map((m) => at(m)),
    );
    expect(calm[4]!.orders).toEqual([]);
  });

  it("never adds beyond max_position in total (predecessor pyramided every tick)", () => {
    const c = ctx({ snapshot: snap({ mid: 2510 }), positionQty: -5 });
    const ds = run(
      meanReversion,
      { window: 5, threshold_bps: 10, max_position: 5 },
      [2500, 2500, 2500, 2500].map((m) => at(m)).concat([c]),
    );
    expect(ds[4]!.orders).toEqual([]);
  });

  it("closes the position once price is back at the average", () => {
    const c = ctx({ snapshot: snap({ mid: 2500 }), positionQty: -2 });
    const ds = run(
      meanReversion,
      { window: 5, threshold_bps: 10 },
      [2500, 2500, 2500, 2500].map((m) => at(m)).concat([c]),
    );
    expect(ds[4]!.orders).toEqual([
      { side: "buy", price: 2500.25, size: 2, tif: "Ioc", tag: "revert_exit", reduceOnly: true },
    ]);
  });
});

describe("momentum_breakout", () => {
  it("warm-up, no surge → nothing; breakout with surge → buy at the ask", () => {
    const ds = run(momentumBreakout, { lookback: 3, breakout_threshold_bps: 10, volume_surge_mult: 2 }, [
      at(2500, { volume24h: 100 }),
      at(2500, { volume24h: 100 }),
      at(2500, { volume24h: 100 }),
      at(2506, { volume24h: 150 }),
      at(2511, { volume24h: 1000 }),
    ]);
    expect(ds.slice(0, 4).every((d) => d.orders.length === 0)).toBe(true);
    expect(ds[4]!.orders).toEqual([
      { side: "buy", price: 2511.25, size: 1, tif: "Ioc", tag: "breakout_long" },
    ]);
  });

  it("the trailing stop trails the best price since entry (predecessor's never moved)", () => {
    const p = { trailing_stop_bps: 100 };
    const long = (mid: number) => ctx({ snapshot: snap({ mid }), positionQty: 1, avgEntryPrice: 2400 });
    const ds = run(momentumBreakout, p, [long(2400), long(2500), long(2480), long(2474)]);
    expect(ds[1]!.meta?.extreme).toBe(2500);
    expect(ds[2]!.orders).toEqual([]); // 2480 > 2500·0.99 = 2475
    expect(ds[3]!.orders[0]).toMatchObject({
      side: "sell",
      size: 1,
      tag: "trailing_stop_long",
      reduceOnly: true,
    });
  });

  it("uses candle volume when candles are present", () => {
    const candle = (v: number) => [{ t: 0, o: 1, h: 1, l: 1, c: 1, v }];
    const ds = run(momentumBreakout, { lookback: 2, breakout_threshold_bps: 10 }, [
      at(2500, { candles: candle(10), volume24h: 1e9 }),
      at(2500, { candles: candle(10), volume24h: 1e9 }),
      at(2520, { candles: candle(50), volume24h: 1e9 }),
    ]);
    expect(ds[2]!.orders[0]).toMatchObject({ side: "buy", tag: "breakout_long" });
  });
});

describe("basis_arb", () => {
  const f = (rate: number, q = 0) => ctx({ snapshot: snap({ fundingRate: rate }), positionQty: q });

  it("annualises hourly funding (×24×365) and shorts contango to a target size", () => {
    // 0.0002/h → 17,520 bps a year > 1,500
    const ds = run(basisArb, {}, [f(0.0002), f(0.0002), f(0.0002)]);
    expect(ds[1]!.orders).toEqual([]);
    expect(ds[2]!.meta?.basis_ann_bps).toBeCloseTo(0.0002 * 24 * 365 * 10_000, 6);
    expect(ds[2]!.orders).toEqual([
      { side: "sell", price: 2499.75, size: 1, tif: "Ioc", tag: "short_contango" },
    ]);
  });

  it("does not pyramid: at the target it holds (predecessor added every tick)", () => {
    const ds = run(basisArb, {}, [f(0.0002, -1), f(0.0002, -1), f(0.0002, -1), f(0.0002, -1)]);
    expect(ds.every((d) => d.orders.length === 0)).toBe(true);
  });

  it("backwardation → long; wrong side is closed and flipped; typical funding does not trade", () => {
    expect(run(basisArb, {}, [f(-0.0002), f(-0.0002), f(-0.0002)])[2]!.orders[0]).toMatchObject({
      side: "buy",
      size: 1,
      tag: "long_backwardation",
    });
    expect(run(basisArb, {}, [f(0.0002, 1), f(0.0002, 1), f(0.0002, 1)])[2]!.orders[0]).toMatchObject({
      side: "sell",
      size: 2,
      tag: "close_wrong_side",
    });
    // 0.00125 %/h ≈ 1,095 bps/yr: below the threshold
    expect(run(basisArb, {}, [f(0.0000125), f(0.0000125), f(0.0000125)])[2]!.orders).toEqual([]);
  });

  it("exits inside half the threshold", () => {
    // 0.000005/h ≈ 438 bps/yr < 750: flat; 0.00001/h ≈ 876 bps/yr: inside the hold band, keep the short
    const exit = run(basisArb, {}, [f(0.000005, -1), f(0.000005, -1), f(0.000005, -1)]);
    expect(exit[2]!.orders[0]).toMatchObject({ side: "buy", size: 1, tag: "basis_exit" });
    const hold = run(basisArb, {}, [f(0.00001, -1), f(0.00001, -1), f(0.00001, -1)]);
    expect(hold[2]!.orders).toEqual([]);
  });
});

describe("aggressive_taker", () => {
  it("crosses both sides with a sinusoidal bias, priced in bps beyond the touch", () => {
    const ds = run(aggressiveTaker, {}, [at(2500), at(2500), at(2500), at(2500)]);
    const sizes = ds.map((d) => d.orders.map((o) => Number(o.size.toFixed(6))));
    expect(sizes).toEqual([
      [1.7, 0.3],
      [1, 1],
      [0.3, 1.7],
      [1, 1],
    ]);
    const [b, s] = ds[0]!.orders;
    expect(b!.price).toBeCloseTo(2500.25 * 1.0005, 6);
    expect(s!.price).toBeCloseTo(2499.75 * 0.9995, 6);
    expect(b!.tif).toBe("Ioc");
  });

  it("the offset scales with price (predecessor used an absolute $3)", () => {
    const d = run(aggressiveTaker, {}, [
      ctx({ snapshot: snap({ mid: 0.15, bid: 0.1499, ask: 0.1501 }) }),
    ])[0]!;
    expect(d.orders[0]!.price).toBeLessThan(0.1502);
    expect(d.orders[1]!.price).toBeGreaterThan(0.1498);
  });

  it("skip_ticks trades every (n+1)-th tick only", () => {
    const ds = run(aggressiveTaker, { skip_ticks: 2 }, [at(2500), at(2500), at(2500)]);
    expect(ds.map((d) => d.orders.length)).toEqual([0, 0, 2]);
  });

  it("the bias survives skipping: its phase counts trading ticks (every other tick with period 4 kept it at 0)", () => {
    const ds = run(
      aggressiveTaker,
      { skip_ticks: 1 },
      Array.from({ length: 8 }, () => at(2500)),
    );
    const traded = ds.filter((d) => d.orders.length > 0);
    expect(traded.map((d) => d.orders.map((o) => Number(o.size.toFixed(6))))).toEqual([
      [1.7, 0.3],
      [1, 1],
      [0.3, 1.7],
      [1, 1],
    ]);
    expect(() => aggressiveTaker.params.parse({ bias_period: 2 })).toThrow();
  });
});

describe("hedge_agent", () => {
  const h = (q: number, params = {}) => run(hedgeAgent, params, [ctx({ positionQty: q })])[0]!;
  it("does nothing within the thresholds", () => {
    expect(h(2).orders).toEqual([]);
    expect(h(3).orders).toEqual([]);
  });
  it("hedges urgency × excess, reduce-only, through mid by the slippage", () => {
    expect(h(7).orders).toEqual([
      { side: "sell", price: 2497.5, size: 2, tif: "Ioc", tag: "hedge_sell", reduceOnly: true },
    ]);
    expect(h(-5).orders[0]).toMatchObject({ side: "buy", price: 2502.5, size: 1, tag: "hedge_buy" });
    expect(h(100, { inventory_threshold: 1, urgency_factor: 1, max_hedge_size: 2 }).orders[0]!.size).toBe(2);
    // A spread wider than the slippage: the limit is the touch, so the hedge still crosses.
    const wide = (q: number) =>
      run(hedgeAgent, {}, [ctx({ positionQty: q, snapshot: snap({ mid: 2500, bid: 2490, ask: 2510 }) })])[0]!;
    expect(wide(7).orders[0]).toMatchObject({ side: "sell", price: 2490 });
    expect(wide(-7).orders[0]).toMatchObject({ side: "buy", price: 2510 });
  });
  it("the notional threshold (a real param now) also triggers a hedge", () => {
    // 3 @ 2500 = 7,500 notional > 5,000: excess 1 → hedge 0.5
    expect(h(3, { notional_threshold: 5000 }).orders[0]!.size).toBeCloseTo(0.5, 9);
  });
});
