import { usd } from "../core/money.ts";
import type { HowlMetrics } from "./howl-metrics.ts";

/** Every threshold the HOWL rules use, in one place (percentages on a 0–100 scale). */
export const HOWL_THRESHOLDS = {
  fdrCriticalPct: 30,
  fdrWarningPct: 20,
  lowWinRatePct: 40,
  monsterDependencyPct: 60,
  lossStreak: 5,
  /** Round trips needed before win-rate, monster and "no issues" verdicts are trusted. */
  minRoundTrips: 5,
  /** Round trips (overall, per direction, per instrument) needed for the fee, bias and instrument rules. */
  minGroupTrips: 3,
} as const;

type Severity = "critical" | "warning" | "info";

export interface Recommendation {
  rule: string;
  severity: Severity;
  message: string;
}

/** Signed money for reports: `$+9.00`, `$-6.00` (one format for every review tool). */
export const formatUsd = (value: number): string => usd(value);

/**
 * The HOWL rule set, evaluated in a fixed order; each firing rule adds one recommendation.
 * Pure: metrics in, advice out.
 */
export function howlRecommendations(m: HowlMetrics): Recommendation[] {
  const T = HOWL_THRESHOLDS;
  const out: Recommendation[] = [];
  const rt = m.total_round_trips;
  if (rt === 0) return out;

  if (m.fdr === null) {
    if (m.total_fees > 0) {
      out.push({
        rule: "fdr",
        severity: "critical",
        message:
          "FDR is unbounded — fees were paid but no round trip had a gross win. Stop and re-check the edge.",
      });
    }
  } else if (m.fdr > T.fdrCriticalPct) {
    out.push({
      rule: "fdr",
      severity: "critical",
      message: `FDR is ${m.fdr.toFixed(0)}% — fees are eating >${T.fdrCriticalPct}% of gross wins. Reduce trade frequency or increase edge per trade.`,
    });
  } else if (m.fdr > T.fdrWarningPct) {
    out.push({
      rule: "fdr",
      severity: "warning",
      message: `FDR is ${m.fdr.toFixed(0)}% — approaching the ${T.fdrCriticalPct}% danger zone. Monitor fee drag.`,
    });
  }

  if (rt >= T.minRoundTrips && m.win_rate < T.lowWinRatePct) {
    out.push({
      rule: "win_rate",
      severity: "warning",
      message: `Win rate is ${m.win_rate.toFixed(0)}% — below ${T.lowWinRatePct}%. Tighten entry criteria.`,
    });
  }

  if (
    rt >= T.minRoundTrips &&
    m.monster_dependency_pct !== null &&
    m.monster_dependency_pct > T.monsterDependencyPct
  ) {
    out.push({
      rule: "monster_dependency",
      severity: "warning",
      message: `Monster dependency is ${m.monster_dependency_pct.toFixed(0)}% — the best trade accounts for >${T.monsterDependencyPct}% of net PnL. Diversify alpha sources.`,
    });
  }

  if (m.max_consecutive_losses >= T.lossStreak) {
    out.push({
      rule: "loss_streak",
      severity: "warning",
      message: `Max consecutive losses: ${m.max_consecutive_losses}. Consider a loss-streak circuit breaker.`,
    });
  }

  const pnlPair = `Long PnL: ${formatUsd(m.long.net_pnl)}, Short PnL: ${formatUsd(m.short.net_pnl)}.`;
  if (m.long.net_pnl < 0 && m.short.net_pnl > 0 && m.long.count >= T.minGroupTrips) {
    out.push({
      rule: "direction_bias",
      severity: "warning",
      message: `${pnlPair} Reduce long bias — the short side is more profitable.`,
    });
  } else if (m.short.net_pnl < 0 && m.long.net_pnl > 0 && m.short.count >= T.minGroupTrips) {
    out.push({
      rule: "direction_bias",
      severity: "warning",
      message: `${pnlPair} Reduce short bias — the long side is more profitable.`,
    });
  }

  if (rt >= T.minGroupTrips && m.total_fees > Math.abs(m.gross_pnl)) {
    out.push({
      rule: "fees_exceed_gross",
      severity: "critical",
      message:
        "CRITICAL: Fees exceed gross PnL — trading is net negative before any edge. Widen spreads or reduce frequency immediately.",
    });
  }

  if (m.net_pnl > 0) {
    for (const [instrument, s] of Object.entries(m.instrument_stats)) {
      if (s.count >= T.minGroupTrips && s.net_pnl < 0) {
        out.push({
          rule: "instrument_drag",
          severity: "info",
          message: `${instrument} lost ${formatUsd(s.net_pnl)} over ${s.count} round trips while the book is profitable. Consider excluding it.`,
        });
      }
    }
  }

  if (out.length === 0 && rt >= T.minRoundTrips) {
    out.push({
      rule: "healthy",
      severity: "info",
      message: "No major issues detected. Keep current strategy parameters.",
    });
  }
  return out;
}
