import { UserError } from "../../core/errors.ts";
import type { BacktestInputs } from "../run-inputs.ts";
import { MIN_DAILY_RETURNS } from "../summary.ts";
import { parseSweep } from "./grid.ts";
import { historyFingerprint } from "./history-fingerprint.ts";
import { defaultWorkers } from "./pool.ts";
import { queuedTaskRunner } from "./queue.ts";
import { queueSettings, queueUrl } from "./queue-settings.ts";
import {
  parseMetric,
  runSweep,
  runWalkForward,
  type SweepResult,
  type WalkForwardResult,
} from "./run-sweep.ts";
import { loadSweepBase } from "./sweep-base.ts";

export interface SweepCommandOptions extends BacktestInputs {
  sweeps: string[];
  metric: string;
  workers?: number;
  /** Folds of a walk-forward (undefined: a plain sweep over the whole period). */
  folds?: number;
  /** Postgres URL of the job queue: the runs go to `hl backtest worker` processes instead of threads here. */
  queue?: string;
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
  const url = o.queue === undefined ? undefined : queueUrl(o.queue);
  const settings = url === undefined ? undefined : queueSettings();
  const { base, fromMs, toMs } = await loadSweepBase(o);
  const run = {
    base,
    axes,
    metric,
    workers,
    fromMs,
    toMs,
    ...(o.onProgress ? { onProgress: o.onProgress } : {}),
    ...(url && settings
      ? {
          runTasks: queuedTaskRunner({
            url,
            settings,
            inputs: jobInputs(o),
            fingerprint: historyFingerprint(base.history, base.szDecimals),
          }),
        }
      : {}),
  };
  return o.folds === undefined ? runSweep(run) : runWalkForward({ ...run, folds: o.folds });
}

/**
 * The backtest's inputs by name, as a queued job carries them: every input but the data directory
 * (each worker has its own), whatever inputs a run may gain, so a worker runs what this run would.
 */
export function jobInputs(o: SweepCommandOptions): Omit<BacktestInputs, "dataDir"> {
  const {
    dataDir: _dir,
    sweeps: _s,
    metric: _m,
    workers: _w,
    folds: _f,
    queue: _q,
    onProgress: _p,
    ...inputs
  } = o;
  return inputs;
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
