import { runBacktest } from "../run-backtest.ts";
import type { RunInputs } from "../run-inputs.ts";
import type { BacktestSummary } from "../summary.ts";
import type { GridPoint } from "./grid.ts";

/** Everything a sweep's runs share (sent once to each worker): the settings a single run of its inputs gets. */
export type SweepBase = RunInputs;

/** One run of the sweep: a grid point over a window of the period. */
export interface SweepTask {
  index: number;
  params: GridPoint;
  fromMs: number;
  toMs: number;
}

/** The figures of one run without its trade list (a ranking needs the figures only). */
export type SweepFigures = Omit<BacktestSummary, "trades">;

export type SweepOutcome = { index: number; figures: SweepFigures } | { index: number; error: string };

/** Metrics a sweep can rank by: the summary's numeric figures. */
export const SWEEP_METRICS = [
  "sharpe",
  "sortino",
  "pnl_usd",
  "return_pct",
  "max_drawdown_pct",
  "max_drawdown_usd",
  "win_rate",
  "profit_factor",
  "exposure_pct",
  "fees_usd",
] as const;
export type SweepMetric = (typeof SWEEP_METRICS)[number];

/** The run's score for `metric` (undefined when the figure is absent, e.g. no Sharpe on one day). */
export function scoreOf(f: SweepFigures, metric: SweepMetric): number | undefined {
  const v = f[metric];
  if (v === null || v === undefined) return undefined;
  const n = typeof v === "string" ? Number(v) : v;
  return Number.isFinite(n) ? n : undefined;
}

/** Run one task in this thread: the backtest core, unchanged, with the point's params. */
export async function runSweepTask(base: SweepBase, task: SweepTask): Promise<SweepOutcome> {
  try {
    const { summary } = await runBacktest({
      ...base,
      params: { ...base.params, ...task.params },
      fromMs: task.fromMs,
      toMs: task.toMs,
    });
    const { trades: _trades, ...figures } = summary;
    return { index: task.index, figures };
  } catch (e) {
    return { index: task.index, error: e instanceof Error ? e.message : String(e) };
  }
}
