import { describe, expect, it } from "vitest";
import { parseSweep } from "../../../src/backtest/sweep/grid.ts";
import { runSweep, runWalkForward } from "../../../src/backtest/sweep/run-sweep.ts";
import type { SweepBase } from "../../../src/backtest/sweep/sweep-job.ts";
import { simHistory } from "../sim-history.ts";

const END = Date.UTC(2026, 2, 3, 0, 0);
const HOUR = 3_600_000;
const base: SweepBase = {
  strategy: "mean_reversion",
  instrument: "ETH-PERP",
  params: { size: 0.5, max_position: 1.5 },
  risk: {},
  feeTier: 0,
  latencyMs: 0,
  slippageBps: 0,
  szDecimals: 4,
  history: simHistory({ coin: "ETH", szDecimals: 4, endPx: 3400, endMs: END, days: 1 }),
};
const axes = [parseSweep("threshold_bps=2..8:2"), parseSweep("window=10,20")];

describe("hl backtest --sweep", () => {
  it("ranks the same on 2 worker threads as run one after another, and best first", async () => {
    const opts = { base, axes, metric: "return_pct" as const, fromMs: END - 8 * HOUR, toMs: END };
    const progress: number[] = [];
    const sequential = await runSweep({ ...opts, workers: 0 });
    const threaded = await runSweep({ ...opts, workers: 2, onProgress: (done) => progress.push(done) });
    expect(threaded).toEqual(sequential);
    expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const runs = sequential.runs;
    expect(runs).toHaveLength(8);
    expect(runs.map((r) => r.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (let i = 1; i < runs.length; i++) expect(runs[i - 1]!.score!).toBeGreaterThanOrEqual(runs[i]!.score!);
    // The grid really changed the runs: not every point traded alike.
    expect(new Set(runs.map((r) => r.figures!.fills)).size).toBeGreaterThan(1);
    for (const r of runs) expect(r.figures!.params).toMatchObject({ ...r.params, size: 0.5 });
  }, 30_000);

  it("walk-forward: picks the in-sample winner and reports it out of sample", async () => {
    const wf = await runWalkForward({
      base,
      axes,
      metric: "return_pct",
      workers: 0,
      fromMs: END - 16 * HOUR,
      toMs: END,
      folds: 2,
    });
    expect(wf.folds).toHaveLength(2);
    const [a, b] = wf.folds;
    // 16 h = (2 folds + 3) × 3.2 h: in-sample 9.6 h, then 3.2 h out of sample, twice.
    expect(a!.out_of_sample).toEqual({
      from: new Date(END - 6.4 * HOUR).toISOString(),
      to: new Date(END - 3.2 * HOUR).toISOString(),
    });
    expect(b!.in_sample.to).toBe(b!.out_of_sample.from);
    for (const f of wf.folds) {
      // The winner is the best of the grid run alone on the fold's in-sample window.
      const alone = await runSweep({
        base,
        axes,
        metric: "return_pct",
        workers: 0,
        fromMs: Date.parse(f.in_sample.from),
        toMs: Date.parse(f.in_sample.to),
      });
      expect(f.best_params).toEqual(alone.runs[0]!.params);
      expect(f.figures!.from).toBe(f.out_of_sample.from);
      expect(f.figures!.params).toMatchObject(f.best_params!);
    }
    const sum = wf.folds.reduce((s, f) => s + Number(f.figures!.pnl_usd), 0);
    expect(Number(wf.out_of_sample.pnl_usd)).toBeCloseTo(sum, 6);
    expect(wf.out_of_sample.folds_scored).toBe(2);
  }, 30_000);
});
