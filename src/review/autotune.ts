import { dec, num } from "../core/decimal.ts";
import type { HowlMetrics } from "./howl-metrics.ts";
import type { MemoryEvent } from "./memory.ts";

/** The WOLF settings HOWL may tune. */
export interface TunableConfig {
  scanner_score_threshold: number;
  movers_confidence_threshold: number;
  daily_loss_limit: number;
  movers_immediate_auto_entry: boolean;
  max_same_direction: number;
}

/** Hard bounds: no rule ever moves a threshold outside these. */
export const TUNE_BOUNDS = {
  scanner_score_threshold: { min: 120, max: 280 },
  movers_confidence_threshold: { min: 40, max: 95 },
  daily_loss_limit: { min: 50, max: 5000 },
} as const;

export const TUNE_RULES = {
  /** Round trips the window must hold before anything changes. */
  minRoundTrips: 5,
  /** Minimum time between two tuning changes. */
  cooldownMs: 12 * 3_600_000,
  fdrCriticalPct: 30,
  fdrWarningPct: 20,
  lowWinRatePct: 40,
  lossStreak: 5,
  directionMinTrips: 3,
  scannerStep: 10,
  moversFdrStep: 5,
  moversWinRateStep: 10,
  dailyLossFactor: "0.8",
  /** Emergency floors: thresholds are raised to at least these, never lowered to them. */
  emergencyScannerFloor: 250,
  emergencyMoversFloor: 90,
  /** Relaxing needs a healthy window: */
  relaxMinWinRatePct: 50,
  relaxMaxFdrPct: 15,
  relaxScannerStep: 5,
  /** …and never relaxes the scanner below this. */
  relaxScannerFloor: 170,
} as const;

export interface ParamChange {
  param: keyof TunableConfig;
  old: number | boolean;
  new: number | boolean;
  reason: string;
}

interface TuneInput {
  config: TunableConfig;
  /** Metrics over the rolling window: round trips closed since the last change (never all history). */
  metrics: HowlMetrics;
  nowMs: number;
  /** Time of the previous `param_change`, or null. */
  lastChangeMs: number | null;
}

export interface TunePlan {
  changes: ParamChange[];
  config: TunableConfig;
  /** The `param_change` memory event to record, when anything changed. */
  event: MemoryEvent | null;
  /** Why nothing changed, when nothing did. */
  note: string | null;
}

type Bounded = keyof typeof TUNE_BOUNDS;

function clamp(param: Bounded, value: number): number {
  const b = TUNE_BOUNDS[param];
  return Math.min(b.max, Math.max(b.min, value));
}

/** Tighten a threshold towards `target` within bounds; a value already stricter (even out of bounds) stays. */
function raise(
  cfg: TunableConfig,
  param: "scanner_score_threshold" | "movers_confidence_threshold",
  target: number,
) {
  return Math.max(cfg[param], clamp(param, target));
}

/** Tighten the loss limit towards `target` within bounds; never raise it. */
function lowerLossLimit(cfg: TunableConfig, target: number) {
  return Math.min(cfg.daily_loss_limit, clamp("daily_loss_limit", target));
}

/**
 * Plan bounded adjustments of WOLF's entry thresholds from a HOWL window. Pure.
 * - one change per parameter per run (the strongest rule wins; reasons are joined);
 * - everything clamped to TUNE_BOUNDS;
 * - emergency (fees above gross PnL) only tightens: thresholds rise to the emergency floors or stay;
 * - relaxing happens only when nothing else fired and the window is clearly healthy;
 * - a cooldown and the since-last-change window stop the same evidence from ratcheting twice.
 */
export function planAutoTune(input: TuneInput): TunePlan {
  const { config: cfg, metrics: m } = input;
  const R = TUNE_RULES;
  const none = (note: string): TunePlan => ({ changes: [], config: cfg, event: null, note });
  if (input.lastChangeMs !== null && input.nowMs - input.lastChangeMs < R.cooldownMs) {
    return none("cooldown: the last change is too recent");
  }
  if (m.total_round_trips < R.minRoundTrips) {
    return none(
      `insufficient data (${m.total_round_trips} < ${R.minRoundTrips} round trips since the last change)`,
    );
  }

  const proposals = new Map<keyof TunableConfig, { value: number | boolean; reasons: string[] }>();
  /** Keep the most protective proposal per parameter: higher thresholds, lower loss limit, fewer same-direction slots. */
  const propose = (param: keyof TunableConfig, value: number | boolean, reason: string) => {
    const prev = proposals.get(param);
    if (!prev) {
      proposals.set(param, { value, reasons: [reason] });
      return;
    }
    prev.reasons.push(reason);
    if (typeof value === "number" && typeof prev.value === "number") {
      const stricter = param === "daily_loss_limit" || param === "max_same_direction" ? Math.min : Math.max;
      prev.value = stricter(prev.value, value);
    } else if (value === false) {
      prev.value = false;
    }
  };

  const feesExceedGross = m.total_fees > Math.abs(m.gross_pnl);
  if (feesExceedGross) {
    propose("movers_immediate_auto_entry", false, "emergency: fees exceed gross PnL");
    propose(
      "scanner_score_threshold",
      raise(cfg, "scanner_score_threshold", R.emergencyScannerFloor),
      "emergency: fees exceed gross PnL",
    );
    propose(
      "movers_confidence_threshold",
      raise(cfg, "movers_confidence_threshold", R.emergencyMoversFloor),
      "emergency: fees exceed gross PnL",
    );
  } else {
    const fdrCritical = m.fdr === null ? m.total_fees > 0 : m.fdr > R.fdrCriticalPct;
    if (fdrCritical) {
      const why = `FDR ${m.fdr === null ? "unbounded" : `${m.fdr.toFixed(0)}%`}`;
      propose(
        "scanner_score_threshold",
        raise(cfg, "scanner_score_threshold", cfg.scanner_score_threshold + R.scannerStep),
        why,
      );
      if (cfg.movers_immediate_auto_entry) propose("movers_immediate_auto_entry", false, why);
    } else if (m.fdr !== null && m.fdr > R.fdrWarningPct) {
      propose(
        "movers_confidence_threshold",
        raise(cfg, "movers_confidence_threshold", cfg.movers_confidence_threshold + R.moversFdrStep),
        `FDR ${m.fdr.toFixed(0)}%`,
      );
    }
    if (m.win_rate < R.lowWinRatePct) {
      const why = `win rate ${m.win_rate.toFixed(0)}%`;
      propose(
        "scanner_score_threshold",
        raise(cfg, "scanner_score_threshold", cfg.scanner_score_threshold + R.scannerStep),
        why,
      );
      propose(
        "movers_confidence_threshold",
        raise(cfg, "movers_confidence_threshold", cfg.movers_confidence_threshold + R.moversWinRateStep),
        why,
      );
    }
    if (m.max_consecutive_losses >= R.lossStreak) {
      propose(
        "daily_loss_limit",
        lowerLossLimit(cfg, num(dec(cfg.daily_loss_limit).times(R.dailyLossFactor), 2)),
        `${m.max_consecutive_losses} consecutive losses`,
      );
    }
    const longBias = m.long.net_pnl < 0 && m.short.net_pnl > 0 && m.long.count >= R.directionMinTrips;
    const shortBias = m.short.net_pnl < 0 && m.long.net_pnl > 0 && m.short.count >= R.directionMinTrips;
    if ((longBias || shortBias) && cfg.max_same_direction > 1) {
      propose(
        "max_same_direction",
        1,
        `${longBias ? "long" : "short"} side losing while the other side wins`,
      );
    }
    const healthy =
      m.win_rate >= R.relaxMinWinRatePct && m.net_pnl > 0 && m.fdr !== null && m.fdr < R.relaxMaxFdrPct;
    if (proposals.size === 0 && healthy && cfg.scanner_score_threshold > R.relaxScannerFloor) {
      propose(
        "scanner_score_threshold",
        Math.max(
          R.relaxScannerFloor,
          clamp("scanner_score_threshold", cfg.scanner_score_threshold - R.relaxScannerStep),
        ),
        "healthy window: relax slightly",
      );
    }
  }

  const changes: ParamChange[] = [];
  const next: TunableConfig = { ...cfg };
  for (const [param, p] of proposals) {
    if (p.value === cfg[param]) continue;
    changes.push({ param, old: cfg[param], new: p.value, reason: p.reasons.join("; ") });
    (next as Record<keyof TunableConfig, number | boolean>)[param] = p.value;
  }
  if (changes.length === 0) return none("no rule asked for a change");
  return {
    changes,
    config: next,
    note: null,
    event: {
      event_type: "param_change",
      timestamp_ms: input.nowMs,
      payload: {
        adjustments: changes,
        metrics_summary: {
          round_trips: m.total_round_trips,
          win_rate: m.win_rate,
          net_pnl: m.net_pnl,
          fdr: m.fdr,
        },
      },
      summary: `Config adjusted: ${changes.map((c) => `${c.param}: ${c.old}->${c.new}`).join("; ")}`,
    },
  };
}
