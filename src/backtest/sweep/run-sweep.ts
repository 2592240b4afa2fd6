import { D, wire } from "../../core/decimal.ts";
import { UserError } from "../../core/errors.ts";
import { resolveParams, resolveStrategy } from "../../engine/runner.ts";
import { expandGrid, type GridPoint, type SweepAxis } from "./grid.ts";
import { runTasks } from "./pool.ts";
import { rankRuns, type SweepRun } from "./rank.ts";
import {
  SWEEP_METRICS,
  type SweepBase,
  type SweepFigures,
  type SweepMetric,
  type SweepTask,
  scoreOf,
} from "./sweep-job.ts";
import { walkForwardFolds } from "./walk-forward.ts";

interface SweepOptions {
  base: SweepBase;
  axes: readonly SweepAxis[];
  metric: SweepMetric;
  /** Worker threads (0: sequential in this thread). */
  workers: number;
  fromMs: number;
  toMs: number;
  /** Runs finished so far out of all the sweep will run. */
  onProgress?: (done: number, total: number) => void;
  /** Who runs the tasks (default: worker threads here; queue.ts: workers on other machines). */
  runTasks?: typeof runTasks;
}

/** One ranked run: 1 is best. */
interface RankedRun {
  rank: number;
  params: GridPoint;
  score: number | null;
  figures?: SweepFigures;
  error?: string;
}

export interface SweepResult {
  metric: SweepMetric;
  runs: RankedRun[];
}

interface FoldResult {
  fold: number;
  in_sample: { from: string; to: string };
  out_of_sample: { from: string; to: string };
  /** The in-sample winner and its in-sample score. */
  best_params: GridPoint | null;
  in_sample_score: number | null;
  /** The winner's figures out of sample (null when no in-sample run had a score). */
  figures: SweepFigures | null;
  error?: string;
}

export interface WalkForwardResult {
  metric: SweepMetric;
  folds: FoldResult[];
  /** Out-of-sample windows together: summed PnL and the mean of the metric over folds that have it. */
  out_of_sample: { pnl_usd: string; mean_score: number | null; folds_scored: number };
}

export function parseMetric(raw: string): SweepMetric {
  if (!(SWEEP_METRICS as readonly string[]).includes(raw))
    throw new UserError(`--metric must be one of ${SWEEP_METRICS.join(", ")}, got "${raw}"`);
  return raw as SweepMetric;
}

/** Run every grid point over [fromMs, toMs) and rank them by the metric, best first. */
export async function runSweep(o: SweepOptions): Promise<SweepResult> {
  const grid = gridOf(o.base, o.axes);
  const tasks = grid.map((params, index) => ({ index, params, fromMs: o.fromMs, toMs: o.toMs }));
  const outcomes = await (o.runTasks ?? runTasks)(o.base, tasks, o.workers, o.onProgress);
  return { metric: o.metric, runs: ranked(tasks, outcomes, o.metric) };
}

/**
 * Walk-forward: for each fold, the grid runs on the in-sample window and its best point (by the
 * metric) then runs on the out-of-sample window right after; only out-of-sample figures are reported
 * as the result. All folds' in-sample runs go to the workers together, then all out-of-sample runs.
 */
export async function runWalkForward(o: SweepOptions & { folds: number }): Promise<WalkForwardResult> {
  const grid = gridOf(o.base, o.axes);
  const folds = walkForwardFolds(o.fromMs, o.toMs, o.folds);
  const total = folds.length * (grid.length + 1);
  let before = 0;
  const progress = (done: number) => o.onProgress?.(before + done, total);
  const inTasks: SweepTask[] = [];
  for (const f of folds)
    for (const params of grid)
      inTasks.push({ index: inTasks.length, params, fromMs: f.inFrom, toMs: f.inTo });
  const inOutcomes = await (o.runTasks ?? runTasks)(o.base, inTasks, o.workers, progress);
  before = inTasks.length;
  const winners = folds.map((f, k) => {
    const tasks = inTasks.slice(k * grid.length, (k + 1) * grid.length);
    const best = ranked(
      tasks.map((t, i) => ({ ...t, index: i })),
      inOutcomes.slice(k * grid.length, (k + 1) * grid.length),
      o.metric,
    )[0];
    return { fold: f, best: best && best.score !== null ? best : undefined };
  });
  const outTasks: SweepTask[] = [];
  for (const w of winners)
    if (w.best)
      outTasks.push({
        index: outTasks.length,
        params: w.best.params,
        fromMs: w.fold.outFrom,
        toMs: w.fold.outTo,
      });
  const outOutcomes = await (o.runTasks ?? runTasks)(o.base, outTasks, o.workers, progress);
  let k = 0;
  const iso = (ms: number) => new Date(ms).toISOString();
  const results: FoldResult[] = winners.map((w) => {
    const base = {
      fold: w.fold.index + 1,
      in_sample: { from: iso(w.fold.inFrom), to: iso(w.fold.inTo) },
      out_of_sample: { from: iso(w.fold.outFrom), to: iso(w.fold.outTo) },
    };
    if (!w.best) return { ...base, best_params: null, in_sample_score: null, figures: null };
    const out = outOutcomes[k++]!;
    return {
      ...base,
      best_params: w.best.params,
      in_sample_score: w.best.score,
      figures: "figures" in out ? out.figures : null,
      ...("error" in out ? { error: out.error } : {}),
    };
  });
  let pnl = new D(0);
  const scores: number[] = [];
  for (const r of results) {
    if (!r.figures) continue;
    pnl = pnl.plus(r.figures.pnl_usd);
    const s = scoreOf(r.figures, o.metric);
    if (s !== undefined) scores.push(s);
  }
  return {
    metric: o.metric,
    folds: results,
    out_of_sample: {
      pnl_usd: wire(pnl),
      mean_score: scores.length
        ? Number((scores.reduce((a, b) => a + b, 0) / scores.length).toFixed(6))
        : null,
      folds_scored: scores.length,
    },
  };
}

/** The grid, every point checked against the strategy's params first (a bad name or value stops here). */
function gridOf(base: SweepBase, axes: readonly SweepAxis[]): GridPoint[] {
  const grid = expandGrid(axes);
  if (grid.length === 0)
    throw new UserError("--sweep: give at least one parameter to sweep (name=a..b:step)");
  const strategy = resolveStrategy(base.strategy);
  for (const point of grid) resolveParams(strategy, { ...base.params, ...point });
  return grid;
}

function ranked(
  tasks: readonly SweepTask[],
  outcomes: readonly ({ figures: SweepFigures } | { error: string })[],
  metric: SweepMetric,
): RankedRun[] {
  const runs: SweepRun<SweepFigures>[] = tasks.map((t, i) => {
    const o = outcomes[i]!;
    return "figures" in o
      ? { index: t.index, params: t.params, score: scoreOf(o.figures, metric), figures: o.figures }
      : { index: t.index, params: t.params, score: undefined, error: o.error };
  });
  return rankRuns(runs, metric).map((r, i) => ({
    rank: i + 1,
    params: r.params,
    score: r.score ?? null,
    ...(r.figures ? { figures: r.figures } : {}),
    ...(r.error !== undefined ? { error: r.error } : {}),
  }));
}
