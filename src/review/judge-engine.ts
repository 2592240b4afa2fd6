import { D, type Dec, num } from "../core/decimal.ts";
import type { ClosedSummary } from "./closed-positions.ts";
import { exitType } from "./howl-metrics.ts";
import { rateSignalQuality, type SignalQuality } from "./journal-entry.ts";
import type { OpenLot, RoundTrip } from "./round-trips.ts";
import type { TradeLogMode } from "./trade-log.ts";

/** Every threshold of the judge, in one place (percentages 0–100). */
const JUDGE_THRESHOLDS = {
  /** Signals a source needs before its false-positive rate is reported. */
  minSignalsForRate: 2,
  fpCriticalPct: 60,
  fpElevatedPct: 40,
  /** Above this FP rate a config change is recommended for the known WOLF sources. */
  fpRecommendPct: 50,
  /** A DSL exit that kept less than this share of the peak ROE is a finding. */
  dslMinCapturePct: 50,
  directionMinSignals: 3,
} as const;

/** One position opened by one signal, fully closed (all of the entry fill matched). */
export interface ClosedSignal {
  id: string;
  mode: TradeLogMode;
  instrument: string;
  direction: "long" | "short";
  source: string;
  entry_score: number | null;
  pnl: Dec;
  roe_pct: Dec;
  holding_ms: number;
  close_reason: string;
  closed_ts: number;
}

/** A closed position with its peak, for judging how much of the move the trailing stop kept. */
export interface PeakRecord {
  instrument: string;
  source: string;
  close_reason: string;
  roe_pct: number;
  peak_roe_pct: number;
}

interface SignalScore {
  signal_id: string;
  signal_source: string;
  instrument: string;
  entry_score: number | null;
  outcome_score: number;
  /** The journal's rating of the same signal (one rule: src/review/journal-entry.ts). */
  signal_quality: SignalQuality;
  /** Made money after fees: the rating is not "poor". */
  was_accurate: boolean;
  pnl: number;
  roe_pct: number;
}

interface JudgeFinding {
  finding_type: "false_positive" | "dsl_efficiency";
  source: string;
  instrument: string;
  detail: string;
  score: number;
  recommendation: string;
}

interface ConfigRecommendation {
  param: string;
  suggested_value: number | boolean | string;
  reason: string;
  summary: string;
}

interface PlaybookStat {
  instrument: string;
  source: string;
  count: number;
  wins: number;
  total_pnl: number;
  total_roe: number;
  avg_holding_h: number;
  win_rate: number;
  avg_pnl: number;
  avg_roe: number;
}

export interface JudgeReport {
  timestamp_ms: number;
  round_trips_evaluated: number;
  /** Count, win rate, net PnL and mean ROE as the journal and HOWL give them (absent in older reports). */
  closed?: ClosedSummary;
  signal_scores: SignalScore[];
  findings: JudgeFinding[];
  false_positive_rates: Record<string, number>;
  accuracy_by_instrument: Record<string, { count: number; accurate: number; accuracy_pct: number }>;
  playbook_stats: Record<string, PlaybookStat>;
  config_recommendations: ConfigRecommendation[];
}

/** `entry:scanner` → `scanner`; a fill without a signal tag is attributed to its strategy. */
export function signalSource(entryMeta: string, strategy: string): string {
  const m = /^entry:\s*(.+)$/.exec(entryMeta.trim());
  return m?.[1]?.trim() || strategy || "unknown";
}

/**
 * Group round trips by their opening fill and keep the fully closed ones: one signal, one verdict,
 * however many fills the exit took. PnL is net of fees; ROE is the unlevered price move in the
 * position's favour (gross PnL over entry notional).
 */
export function closedSignals(roundTrips: readonly RoundTrip[], open: readonly OpenLot[]): ClosedSignal[] {
  const stillOpen = new Set(open.map((l) => l.trade.uid));
  const byEntry = new Map<string, RoundTrip[]>();
  for (const t of roundTrips) {
    if (stillOpen.has(t.entry_uid)) continue;
    const list = byEntry.get(t.entry_uid);
    if (list) list.push(t);
    else byEntry.set(t.entry_uid, [t]);
  }
  const out: ClosedSignal[] = [];
  for (const [id, trips] of byEntry) {
    const first = trips[0]!;
    const last = trips.reduce((a, b) => (b.exit_ts >= a.exit_ts ? b : a));
    const qty = trips.reduce((s, t) => s.plus(t.quantity), new D(0));
    const gross = trips.reduce((s, t) => s.plus(t.gross), new D(0));
    const net = trips.reduce((s, t) => s.plus(t.net), new D(0));
    const notional = first.entry_price.times(qty);
    out.push({
      id,
      mode: first.mode,
      instrument: first.instrument,
      direction: first.direction,
      source: signalSource(first.entry_meta, first.strategy),
      entry_score: first.entry_signal_score,
      pnl: net,
      roe_pct: notional.isZero() ? new D(0) : gross.div(notional).times(100),
      holding_ms: last.exit_ts - first.entry_ts,
      close_reason: last.exit_meta,
      closed_ts: last.exit_ts,
    });
  }
  return out.sort((a, b) => a.closed_ts - b.closed_ts);
}

/** Outcome quality 0–100 from the ROE a signal delivered (piecewise; a loss beyond −3% scores 0). */
export function outcomeScore(roePct: number): number {
  let score: number;
  if (roePct >= 5) score = Math.min(100, 60 + 2 * roePct);
  else if (roePct >= 0) score = 40 + 4 * roePct;
  else if (roePct >= -3) score = Math.max(0, 30 + 10 * roePct);
  else score = 0;
  return num(new D(score), 1);
}

function rate(part: number, whole: number, dp = 1): number {
  return whole === 0 ? 0 : num(new D(part).div(whole).times(100), dp);
}

const KNOWN_SOURCE_CHANGES: Record<string, Omit<ConfigRecommendation, "reason">> = {
  movers_immediate: {
    param: "movers_immediate_auto_entry",
    suggested_value: false,
    summary: "Disable movers_immediate auto-entry (high FP rate)",
  },
  movers_signal: {
    param: "movers_confidence_threshold",
    suggested_value: 85,
    summary: "Raise movers confidence threshold",
  },
  scanner: {
    param: "scanner_score_threshold",
    suggested_value: 200,
    summary: "Raise scanner score threshold",
  },
};

/** Pure: evaluate closed signals (and peaks, when known) into a judge report. Recommends only. */
export function judgeSignals(
  signals: readonly ClosedSignal[],
  peaks: readonly PeakRecord[],
  nowMs: number,
): JudgeReport {
  const T = JUDGE_THRESHOLDS;
  const scores: SignalScore[] = signals.map((s) => {
    const roe = num(s.roe_pct, 4);
    const quality = rateSignalQuality(s.source, s.entry_score, s.pnl);
    return {
      signal_id: s.id,
      signal_source: s.source,
      instrument: s.instrument,
      entry_score: s.entry_score,
      outcome_score: outcomeScore(roe),
      signal_quality: quality,
      was_accurate: quality !== "poor",
      pnl: num(s.pnl),
      roe_pct: num(s.roe_pct, 2),
    };
  });

  const bySource = new Map<string, ClosedSignal[]>();
  for (const s of signals) bySource.set(s.source, [...(bySource.get(s.source) ?? []), s]);
  const fpRates: Record<string, number> = {};
  const findings: JudgeFinding[] = [];
  const recommendations: ConfigRecommendation[] = [];
  for (const source of [...bySource.keys()].sort()) {
    const list = bySource.get(source)!;
    if (list.length < T.minSignalsForRate) continue;
    // A signal that did not make money after fees is a false positive, break-even included.
    const fp = rate(list.filter((s) => !s.pnl.gt(0)).length, list.length);
    fpRates[source] = fp;
    if (fp > T.fpCriticalPct) {
      findings.push({
        finding_type: "false_positive",
        source,
        instrument: "",
        detail: `${source} has ${fp.toFixed(0)}% false positive rate`,
        score: fp,
        recommendation: `Tighten ${source} entry criteria — most of its entries lose money`,
      });
    } else if (fp > T.fpElevatedPct) {
      findings.push({
        finding_type: "false_positive",
        source,
        instrument: "",
        detail: `${source} has ${fp.toFixed(0)}% false positive rate (elevated)`,
        score: fp,
        recommendation: `Monitor ${source} — approaching unreliable territory`,
      });
    }
    const change = KNOWN_SOURCE_CHANGES[source];
    if (change && fp > T.fpRecommendPct) {
      recommendations.push({ ...change, reason: `${source} false positive rate ${fp.toFixed(1)}%` });
    }
  }

  for (const p of peaks) {
    if (exitType(p.close_reason) !== "dsl_close" || !(p.peak_roe_pct > 0)) continue;
    const capture = num(new D(p.roe_pct).div(p.peak_roe_pct).times(100), 2);
    if (capture < T.dslMinCapturePct) {
      findings.push({
        finding_type: "dsl_efficiency",
        source: "dsl",
        instrument: p.instrument,
        detail: `DSL captured only ${capture.toFixed(0)}% of peak move (exit ${p.roe_pct.toFixed(1)}% vs peak ${p.peak_roe_pct.toFixed(1)}%)`,
        score: capture,
        recommendation: "Consider tighter DSL tiers to lock more profit",
      });
    }
  }

  const sumPnl = (dir: "long" | "short") =>
    signals.filter((s) => s.direction === dir).reduce((acc, s) => acc.plus(s.pnl), new D(0));
  for (const [dir, other] of [
    ["long", "short"],
    ["short", "long"],
  ] as const) {
    const count = signals.filter((s) => s.direction === dir).length;
    if (count >= T.directionMinSignals && sumPnl(dir).lt(0) && sumPnl(other).gt(0)) {
      recommendations.push({
        param: "direction_bias",
        suggested_value: other,
        reason: `${dir} signals lost ${num(sumPnl(dir), 2)} over ${count} trades while ${other} signals made ${num(sumPnl(other), 2)}`,
        summary: `Reduce ${dir} exposure`,
      });
      break;
    }
  }

  const accuracy: JudgeReport["accuracy_by_instrument"] = {};
  const playbook: Record<string, PlaybookStat> = {};
  const groups = new Map<string, ClosedSignal[]>();
  for (const s of signals) {
    const key = `${s.instrument}:${s.source}`;
    groups.set(key, [...(groups.get(key) ?? []), s]);
    const a = accuracy[s.instrument] ?? { count: 0, accurate: 0, accuracy_pct: 0 };
    a.count++;
    if (s.pnl.gt(0)) a.accurate++;
    a.accuracy_pct = rate(a.accurate, a.count);
    accuracy[s.instrument] = a;
  }
  for (const key of [...groups.keys()].sort()) {
    const list = groups.get(key)!;
    const wins = list.filter((s) => s.pnl.gt(0)).length;
    const totalPnl = list.reduce((acc, s) => acc.plus(s.pnl), new D(0));
    const totalRoe = list.reduce((acc, s) => acc.plus(s.roe_pct), new D(0));
    const holdingH = list.reduce((acc, s) => acc + s.holding_ms, 0) / list.length / 3_600_000;
    playbook[key] = {
      instrument: list[0]!.instrument,
      source: list[0]!.source,
      count: list.length,
      wins,
      total_pnl: num(totalPnl, 4),
      total_roe: num(totalRoe, 4),
      avg_holding_h: num(new D(holdingH), 2),
      win_rate: rate(wins, list.length),
      avg_pnl: num(totalPnl.div(list.length), 4),
      avg_roe: num(totalRoe.div(list.length), 2),
    };
  }

  return {
    timestamp_ms: nowMs,
    round_trips_evaluated: signals.length,
    signal_scores: scores,
    findings,
    false_positive_rates: fpRates,
    accuracy_by_instrument: accuracy,
    playbook_stats: playbook,
    config_recommendations: recommendations,
  };
}
