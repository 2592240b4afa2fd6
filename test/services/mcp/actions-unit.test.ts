import { describe, expect, it } from "vitest";
import {
  engineTickProgress,
  strategyTimeoutMs,
  wolfTickProgress,
  wolfTimeoutMs,
} from "../../../src/services/mcp/tools/actions.ts";

describe("tick progress", () => {
  it("counts the engine's tick lines on stdout, whatever the total tick number after a resume", () => {
    const p = engineTickProgress(2);
    const line = (n: number) =>
      `[03:25:35] T${n} ETH mid=3401.05 | pos=flat | uPnL=+0 rPnL=+0 | 2 sent 0 filled 0 cancelled 0 rejected | risk: OK`;
    expect(p("Mode: MOCK (paper network)", "stdout")).toBeUndefined();
    expect(p(line(41), "stderr")).toBeUndefined();
    expect(p("tick 3 failed: boom", "stdout")).toBeUndefined();
    expect(p(line(41), "stdout")).toEqual({ progress: 1, total: 2, message: line(41) });
    expect(p(line(42), "stdout")?.progress).toBe(2);
  });

  it("reads WOLF's per-tick state lines (--json) and ignores everything else", () => {
    const p = wolfTickProgress(undefined);
    const state = (tick: number) =>
      JSON.stringify({
        tick_count: tick,
        slots: [{ status: "active" }, { status: "empty" }, { status: "closing" }],
        total_trades: 4,
        daily_pnl: "-1.5",
      });
    expect(p(state(7), "stderr")).toBeUndefined();
    expect(p("{not json", "stdout")).toBeUndefined();
    expect(p(JSON.stringify({ other: 1 }), "stdout")).toBeUndefined();
    expect(p(state(7), "stdout")).toEqual({
      progress: 1,
      message: "tick 7: 2/3 slots active, 4 trades, daily PnL -1.5",
    });
    expect(p(state(8), "stdout")?.progress).toBe(2);
  });
});

describe("hard limits", () => {
  it("wolf_run: max(120, max_ticks·60 + 30) s; none when it runs until cancelled", () => {
    expect(wolfTimeoutMs(1)).toBe(120_000);
    expect(wolfTimeoutMs(5)).toBe(330_000);
    expect(wolfTimeoutMs(5, 1)).toBe(330_000);
    expect(wolfTimeoutMs(5, 300)).toBe(1_530_000);
    expect(wolfTimeoutMs(null)).toBeUndefined();
  });

  it("run_strategy: max(60, max_ticks·tick + 30) s; none when it runs until cancelled", () => {
    expect(strategyTimeoutMs(3, 1)).toBe(60_000);
    expect(strategyTimeoutMs(100, 10)).toBe(1_030_000);
    expect(strategyTimeoutMs(null, 10)).toBeUndefined();
  });
});
