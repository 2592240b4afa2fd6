import { describe, expect, it } from "vitest";
import { D } from "../../src/core/decimal.ts";
import { DEFAULT_RISK_LIMITS, evaluateRisk, filterIntents, initialRiskState } from "../../src/engine/risk.ts";
import type { OrderIntent } from "../../src/strategies/sdk.ts";

const L = DEFAULT_RISK_LIMITS;
const T0 = Date.UTC(2026, 10, 22, 10, 0, 0);
const buy = (size: number, price = 2500, extra: Partial<OrderIntent> = {}): OrderIntent => ({
  side: "buy",
  price,
  size,
  tif: "Ioc",
  tag: "t",
  ...extra,
});
const sell = (size: number, price = 2500, extra: Partial<OrderIntent> = {}): OrderIntent => ({
  side: "sell",
  price,
  size,
  tif: "Ioc",
  tag: "t",
  ...extra,
});
const ev = (pnl: number, prev = initialRiskState(), nowMs = T0, q = 0) =>
  evaluateRisk(L, prev, { pnl: new D(pnl), positionQty: new D(q), mark: new D(2500), nowMs });

describe("risk limits", () => {
  it("documented defaults", () => {
    expect(L).toEqual({
      max_position_qty: 10,
      max_notional_usd: 25_000,
      max_order_size: 5,
      price_band_bps: 500,
      max_drawdown_usd: 2_500,
      daily_loss_usd: 1_000,
      hard_stop_mult: 2,
      capital_usd: 100_000,
    });
  });

  it("order size: 5 passes, 5.0001 is rejected", () => {
    const r = filterIntents(L, [buy(5), buy(5.0001)], { positionQty: -10, mid: 2500, reduceOnly: false });
    expect(r.approved).toHaveLength(1);
    expect(r.rejected[0]!.reason).toMatch(/max_order_size/);
  });

  it("projects the position over all of the tick's orders and trims to the cap", () => {
    const r = filterIntents(L, [buy(4, 2000), buy(4, 2000), buy(4, 2000)], {
      positionQty: 0,
      mid: 2000,
      reduceOnly: false,
    });
    expect(r.approved.map((o) => o.size)).toEqual([4, 4, 2]);
    // notional cap binds first at a high price: 25,000 / 5,000 = 5
    const n = filterIntents(L, [buy(4, 5000), buy(4, 5000)], {
      positionQty: 0,
      mid: 5000,
      reduceOnly: false,
    });
    expect(n.approved.map((o) => o.size)).toEqual([4, 1]);
  });

  it("at the cap only reducing orders pass", () => {
    const r = filterIntents(L, [buy(1, 2000), sell(1, 2000)], {
      positionQty: 10,
      mid: 2000,
      reduceOnly: false,
    });
    expect(r.approved.map((o) => o.side)).toEqual(["sell"]);
  });

  it("reduce-only never flips the position (predecessor could)", () => {
    const r = filterIntents(L, [sell(3), sell(3)], { positionQty: 2, mid: 2500, reduceOnly: true });
    expect(r.approved.map((o) => o.size)).toEqual([2]);
    const flat = filterIntents(L, [sell(1), buy(1)], { positionQty: 0, mid: 2500, reduceOnly: true });
    expect(flat.approved).toEqual([]);
    const flagged = filterIntents(L, [buy(1, 2500, { reduceOnly: true })], {
      positionQty: 0,
      mid: 2500,
      reduceOnly: false,
    });
    expect(flagged.approved).toEqual([]);
  });

  it("in reduce-only mode every approved order carries reduce-only on the wire", () => {
    const r = filterIntents(L, [sell(1), sell(0.5)], { positionQty: 2, mid: 2500, reduceOnly: true });
    expect(r.approved).toHaveLength(2);
    expect(r.approved.every((o) => o.reduceOnly === true)).toBe(true);
    const normal = filterIntents(L, [sell(1)], { positionQty: 2, mid: 2500, reduceOnly: false });
    expect(normal.approved[0]!.reduceOnly).toBeUndefined();
  });

  it("rejects prices outside the band around mid", () => {
    const r = filterIntents(L, [buy(1, 2500 * 1.06), buy(1, 2500 * 1.04)], {
      positionQty: 0,
      mid: 2500,
      reduceOnly: false,
    });
    expect(r.approved).toHaveLength(1);
    expect(r.rejected[0]!.reason).toMatch(/outside/);
  });

  it("drawdown from the high-water mark → reduce-only, lifting again when PnL recovers", () => {
    const day2 = T0 + 86_400_000;
    const a = ev(3000);
    expect(a.mode).toBe("ok");
    const b = ev(400, a.state, day2);
    expect(b.mode).toBe("reduce_only");
    expect(b.state.reasons).toEqual(["max_drawdown"]);
    const c = ev(2000, b.state, day2);
    expect(c.mode).toBe("ok");
  });

  it("daily loss is measured from 00:00 UTC, not lifetime and not a rolling 24 h", () => {
    const morning = ev(5000, initialRiskState(), T0); // day starts at +5000
    const lossToday = ev(3900, morning.state, T0 + 3_600_000);
    expect(lossToday.state.daily_pnl).toBe("-1100");
    expect(lossToday.state.reasons).toContain("daily_loss");
    const nextDay = ev(3900, lossToday.state, Date.UTC(2026, 10, 23, 0, 0, 1));
    expect(nextDay.state.daily_pnl).toBe("0");
    expect(nextDay.state.reasons).not.toContain("daily_loss");
  });

  it("a hard breach (2× a limit) halts, and the halt is sticky", () => {
    const peak = ev(0);
    const crash = ev(-5000, peak.state);
    expect(crash.mode).toBe("halt");
    expect(crash.state.halt_reason).toMatch(/hard/);
    expect(ev(1000, crash.state).mode).toBe("halt");
  });

  it("position and notional at their caps switch to reduce-only", () => {
    expect(ev(0, initialRiskState(), T0, 10).state.reasons).toEqual(["max_position", "max_notional"]);
  });
});
