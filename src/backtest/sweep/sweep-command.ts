import { UserError } from "../../core/errors.ts";
import { type BacktestInputs, loadInputs } from "../backtest-command.ts";
import { MIN_DAILY_RETURNS } from "../summary.ts";
import { parseSweep } from "./grid.ts";
import { defaultWorkers } from "./pool.ts";
import {
  parseMetric,
  runSweep,
  runWalkForward,
  type SweepResult,
  type WalkForwardResult,
} from "./run-sweep.ts";

export interface SweepCommandOptions extends BacktestInputs {
  sweeps: string[];
  metric: string;
  workers?: number;
  /** Folds of a walk-forward (undefined: a plain sweep over the whole period). */
  folds?: number;
  onProgress?: (done: number, total: number) => void;
}

/** `hl backtest --sweep … [--walk-forward]`: read the history once, run the grid, rank. */
export async function sweepCommand(o: SweepCommandOptions): Promise<SweepResult | WalkForwardResult> {
  const axes = o.sweeps.map(parseSweep);
  const metric = parseMetric(o.metric);
  const workers = o.workers ?? defaultWorkers();
  if (!Number.isInteger(workers) || workers < 0 || workers > 64)
    throw new UserError(`--workers must be a whole number from 0 to 64, got ${workers}`);
  const swept = new Set(axes.map((a) => a.name));
  const fixed = Object.keys(o.params).filter((k) => swept.has(k));
  if (fixed.length > 0) throw new UserError(`${fixed.join(", ")} is both swept and fixed with -p`);
  const { instrument, fromMs, toMs, history, szDecimals } = await loadInputs(o);
  const base = {
    strategy: o.strategy,
    instrument,
    params: o.params,
    risk: o.risk,
    feeTier: o.feeTier,
    latencyMs: o.latencyMs,
    slippageBps: o.slippageBps,
    ...(o.participation !== undefined ? { participation: o.participation } : {}),
    szDecimals,
    history,
  };
  const run = {
    base,
    axes,
    metric,
    workers,
    fromMs,
    toMs,
    ...(o.onProgress ? { onProgress: o.onProgress } : {}),
  };
  return o.folds === undefined ? runSweep(run) : runWalkForward({ ...run, folds: o.folds });
}

/** The human-readable ranking or walk-forward table (`--json` prints the result object). */
export function formatSweep(r: SweepResult | WalkForwardResult): string[] {
  const params = (p: Record<string, number> | null) =>
    p === null
      ? "—"
      : Object.entries(p)
          .map(([k, v]) => `${k}=${v}`)
          .join(" ");
  const n = (x: number | null | undefined) => (x === null || x === undefined ? "—" : String(x));
  if ("runs" in r) {
    return [
      `Sweep: ${r.runs.length} runs ranked by ${r.metric}`,
      ...r.runs.map((x) =>
        x.figures
          ? `#${x.rank}  ${params(x.params)}  ${r.metric}=${n(x.score)}  pnl=${x.figures.pnl_usd}  return=${x.figures.return_pct}%  maxdd=${x.figures.max_drawdown_pct}%  fills=${x.figures.fills}`
          : `#${x.rank}  ${params(x.params)}  failed: ${x.error}`,
      ),
    ];
  }
  return [
    `Walk-forward: ${r.folds.length} folds, in-sample winner by ${r.metric}, figures out of sample`,
    ...r.folds.map(
      (f) =>
        `fold ${f.fold}  in ${f.in_sample.from} → ${f.in_sample.to}  best ${params(f.best_params)} (${r.metric}=${n(f.in_sample_score)})  out ${f.out_of_sample.from} → ${f.out_of_sample.to}: ${
          f.figures
            ? `${r.metric}=${n(f.figures[r.metric as keyof typeof f.figures] as number | null)}  pnl=${f.figures.pnl_usd}  return=${f.figures.return_pct}%`
            : (f.error ??
              `no in-sample run scored${r.metric === "sharpe" || r.metric === "sortino" ? ` (${r.metric} needs ${MIN_DAILY_RETURNS} daily returns)` : ""}`)
        }`,
    ),
    `Out of sample: pnl=${r.out_of_sample.pnl_usd}  mean ${r.metric}=${n(r.out_of_sample.mean_score)} over ${r.out_of_sample.folds_scored} folds`,
  ];
}
