import { describe, expect, it } from "vitest";
import { ExchangeClock } from "../../../src/services/agent/exchange-clock.ts";
import { PnlHistory, pnlPoint } from "../../../src/services/agent/pnl-history.ts";
import type { StatusObject } from "../../../src/services/agent/status-reader.ts";

const wolf = (tick: number, total: number, roes: number[]): StatusObject => ({
  status: "running",
  engine: "wolf",
  tick_count: tick,
  total_pnl: total,
  active_slots: roes.map((roe_pct) => ({ roe_pct })),
});

describe("the dashboard's PnL history", () => {
  it("one point per new tick, kept by the service: the chart has its past when a page opens", () => {
    let status: StatusObject = { status: "stopped" };
    let now = 1000;
    const h = new PnlHistory(() => status, { intervalMs: 0, capacity: 3, now: () => now });
    h.sample();
    expect(h.list()).toEqual([]);
    status = wolf(1, -1.5, [2, -4]);
    h.sample();
    h.sample(); // same tick: no second point
    now = 3000;
    status = wolf(2, -2, []);
    h.sample();
    expect(h.list()).toEqual([
      { time_ms: 1000, pnl: -1.5, open_roe_pct: -1 },
      { time_ms: 3000, pnl: -2, open_roe_pct: null }, // no slot open: no ROE, the label clears
    ]);
    for (const t of [3, 4, 5]) {
      status = wolf(t, t, []);
      h.sample();
    }
    expect(h.list().map((p) => p.pnl)).toEqual([3, 4, 5]);
  });

  it("strategy mode plots realised + unrealised", () => {
    const s: StatusObject = { status: "running", tick_count: 4, realized_pnl: 1.25, unrealized_pnl: -0.5 };
    expect(pnlPoint(s, 7)).toEqual({ time_ms: 7, pnl: 0.75, open_roe_pct: null });
  });
});

describe("the exchange's clock", () => {
  it("runs on from the exchange's last answer at the pace it was seen to run", () => {
    const clock = new ExchangeClock();
    expect(clock.now(1000)).toBe(1000); // nothing heard yet: the wall clock
    clock.observe(50_000, 1000);
    expect(clock.now(2000)).toBe(51_000);
    clock.observe(60_000, 2000); // a sim at 10× the wall clock
    expect(clock.now(2500)).toBe(65_000);
  });
});
