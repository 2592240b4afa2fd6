import { type ParamChange, planAutoTune, type TunableConfig, type TunePlan } from "./autotune.ts";
import { type HowlRunResult, runHowl } from "./howl.ts";
import { computeHowlMetrics } from "./howl-metrics.ts";
import { type JudgeRunResult, runJudge } from "./judge.ts";
import { appendMemoryEvent, lastEventMs } from "./memory.ts";
import type { TradeLogMode } from "./trade-log.ts";

interface ReviewRun {
  reason: "interval" | "daily";
  atMs: number;
  howl: HowlRunResult;
  judge: JudgeRunResult;
  tune: TunePlan | null;
}

interface ReviewOptions {
  dataDir: string;
  reason: ReviewRun["reason"];
  nowMs: number;
  sources?: readonly TradeLogMode[];
  /** When given, HOWL may retune these settings (bounded, logged as `param_change`). */
  autoTune?: {
    getConfig(): TunableConfig;
    apply(next: TunableConfig, changes: readonly ParamChange[]): void;
  };
  /** A notes vault the HOWL report is copied into. */
  vault?: string | null;
}

/**
 * One review: HOWL report, judge report (+ playbook), and — when asked — bounded auto-tuning from the
 * round trips closed since the last change. For loops that keep their own schedule (WOLF's `onReview`).
 */
export function runReview(opts: ReviewOptions): ReviewRun {
  const sources = opts.sources ?? ["wolf"];
  const howl = runHowl({ dataDir: opts.dataDir, sources, nowMs: opts.nowMs, vault: opts.vault ?? null });
  const judge = runJudge({ dataDir: opts.dataDir, sources, nowMs: opts.nowMs });
  let tune: TunePlan | null = null;
  if (opts.autoTune) {
    const lastChangeMs = lastEventMs(opts.dataDir, "param_change");
    // Only evidence gathered since the last change may justify the next one (no ratchet on old trades).
    const window = howl.roundTrips.filter((t) => lastChangeMs === null || t.exit_ts > lastChangeMs);
    const metrics = computeHowlMetrics([], window, []);
    tune = planAutoTune({ config: opts.autoTune.getConfig(), metrics, nowMs: opts.nowMs, lastChangeMs });
    if (tune.event) {
      opts.autoTune.apply(tune.config, tune.changes);
      appendMemoryEvent(opts.dataDir, tune.event);
    }
  }
  return { reason: opts.reason, atMs: opts.nowMs, howl, judge, tune };
}
