import { Cron } from "croner";
import { type ParamChange, planAutoTune, type TunableConfig, type TunePlan } from "./autotune.ts";
import { type HowlRunResult, runHowl } from "./howl.ts";
import { computeHowlMetrics } from "./howl-metrics.ts";
import { type JudgeRunResult, runJudge } from "./judge.ts";
import { appendMemoryEvent, lastEventMs } from "./memory.ts";
import type { TradeLogMode } from "./trade-log.ts";

export const REVIEW_INTERVAL_TICKS = 240;
/** Daily review at 04:00 UTC. */
export const REVIEW_DAILY_CRON = "0 4 * * *";

export interface ReviewHookOptions {
  dataDir: string;
  /** Trade logs to review (default: WOLF's). */
  sources?: readonly TradeLogMode[];
  intervalTicks?: number;
  dailyCron?: string;
  /** When given, HOWL may retune these settings after each review (bounded, logged as `param_change`). */
  autoTune?: {
    getConfig(): TunableConfig;
    apply(next: TunableConfig, changes: readonly ParamChange[]): void;
  };
  /** A failed review is reported here and never thrown into the trading loop. */
  onError?: (err: unknown) => void;
}

export interface ReviewRun {
  reason: "interval" | "daily";
  atMs: number;
  howl: HowlRunResult;
  judge: JudgeRunResult;
  tune: TunePlan | null;
}

export interface ReviewHook {
  /** Call once per completed tick; runs HOWL + judge (+ tuning) when due and returns what ran. */
  onTick(tickCount: number, nowMs: number): ReviewRun | null;
  /** When the next daily review falls due (ms), once the first tick has been seen. */
  nextDailyMs(): number | null;
}

export interface ReviewOptions {
  dataDir: string;
  reason: ReviewRun["reason"];
  nowMs: number;
  sources?: readonly TradeLogMode[];
  autoTune?: ReviewHookOptions["autoTune"];
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

/**
 * The review schedule for the WOLF loop: every `intervalTicks` ticks and daily at 04:00 UTC
 * (croner computes the next daily slot from the tick's own clock, so tests drive it with `nowMs`).
 */
export function createReviewHook(opts: ReviewHookOptions): ReviewHook {
  const intervalTicks = opts.intervalTicks ?? REVIEW_INTERVAL_TICKS;
  const daily = new Cron(opts.dailyCron ?? REVIEW_DAILY_CRON, { timezone: "UTC", paused: true });
  let nextDaily: number | null = null;

  const review = (reason: ReviewRun["reason"], nowMs: number): ReviewRun =>
    runReview({ dataDir: opts.dataDir, sources: opts.sources, autoTune: opts.autoTune, reason, nowMs });

  return {
    onTick(tickCount, nowMs) {
      if (nextDaily === null) nextDaily = daily.nextRun(new Date(nowMs))?.getTime() ?? null;
      const dailyDue = nextDaily !== null && nowMs >= nextDaily;
      const intervalDue = tickCount > 0 && tickCount % intervalTicks === 0;
      if (!dailyDue && !intervalDue) return null;
      if (dailyDue) nextDaily = daily.nextRun(new Date(nowMs))?.getTime() ?? null;
      try {
        return review(dailyDue ? "daily" : "interval", nowMs);
      } catch (err) {
        opts.onError?.(err);
        return null;
      }
    },
    nextDailyMs: () => nextDaily,
  };
}
