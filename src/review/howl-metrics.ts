import { D, type Dec, num } from "../core/decimal.ts";
import type { OpenLot, RoundTrip } from "./round-trips.ts";
import type { TradeRecord } from "./trade-log.ts";

/** Holding-time buckets, upper bounds exclusive, in the order the report lists them. */
export const HOLDING_BUCKETS: readonly { label: string; belowMs: number }[] = [
  { label: "<5m", belowMs: 5 * 60_000 },
  { label: "5-15m", belowMs: 15 * 60_000 },
  { label: "15-60m", belowMs: 60 * 60_000 },
  { label: "1-4h", belowMs: 4 * 3_600_000 },
  { label: "4h+", belowMs: Number.POSITIVE_INFINITY },
];

interface GroupStats {
  count: number;
  wins: number;
  losses: number;
  win_rate: number;
  gross_pnl: number;
  total_fees: number;
  net_pnl: number;
}

interface DirectionStats {
  count: number;
  wins: number;
  win_rate: number;
  net_pnl: number;
}

/**
 * Performance over a set of round trips. Money fields are JSON numbers derived from exact decimal
 * sums. Ratios with no defined value are `null`, never Infinity (which JSON cannot carry):
 * a profit factor with no losing side, FDR with no gross wins, monster dependency unless net > 0.
 */
export interface HowlMetrics {
  total_trades: number;
  total_round_trips: number;
  win_count: number;
  loss_count: number;
  /** Net exactly zero: neither a win nor a loss. */
  breakeven_count: number;
  win_rate: number;
  gross_pnl: number;
  /** Fees of the matched (closed) quantity. */
  total_fees: number;
  net_pnl: number;
  /** Fees already paid on positions still open (not part of net_pnl yet). */
  open_fees: number;
  open_lots: number;
  gross_wins: number;
  gross_losses: number;
  gross_profit_factor: number | null;
  net_profit_factor: number | null;
  /** Fee drag ratio: fees / gross wins × 100. */
  fdr: number | null;
  long: DirectionStats;
  short: DirectionStats;
  holding_buckets: Record<string, number>;
  avg_holding_ms: number;
  max_consecutive_wins: number;
  max_consecutive_losses: number;
  best_trade_pnl: number;
  worst_trade_pnl: number;
  /** Best trade as a share of net PnL; only meaningful (non-null) when net PnL is positive. */
  monster_dependency_pct: number | null;
  strategy_stats: Record<string, GroupStats>;
  instrument_stats: Record<string, GroupStats>;
  exit_type_counts: Record<string, number>;
}

const ZERO = new D(0);

/** "dsl_close: phase 2 floor hit" → "dsl_close"; an empty reason means the strategy decided. */
export function exitType(meta: string): string {
  const head = meta.split(":")[0]?.trim() ?? "";
  return head === "" ? "strategy" : head;
}

function pct(part: number, whole: number): number {
  return whole === 0 ? 0 : num(new D(part).div(whole).times(100), 4);
}

function ratio(numerator: Dec, denominator: Dec): number | null {
  return denominator.isZero() ? null : num(numerator.div(denominator), 4);
}

function groupStats(trips: readonly RoundTrip[]): GroupStats {
  let gross = ZERO;
  let fees = ZERO;
  let net = ZERO;
  let wins = 0;
  let losses = 0;
  for (const t of trips) {
    gross = gross.plus(t.gross);
    fees = fees.plus(t.fees);
    net = net.plus(t.net);
    if (t.net.gt(0)) wins++;
    else if (t.net.lt(0)) losses++;
  }
  return {
    count: trips.length,
    wins,
    losses,
    win_rate: pct(wins, trips.length),
    gross_pnl: num(gross),
    total_fees: num(fees),
    net_pnl: num(net),
  };
}

function groupBy(trips: readonly RoundTrip[], key: (t: RoundTrip) => string): Record<string, GroupStats> {
  const groups = new Map<string, RoundTrip[]>();
  for (const t of trips) {
    const k = key(t);
    const list = groups.get(k);
    if (list) list.push(t);
    else groups.set(k, [t]);
  }
  const out: Record<string, GroupStats> = {};
  for (const k of [...groups.keys()].sort()) out[k] = groupStats(groups.get(k)!);
  return out;
}

function directionStats(trips: readonly RoundTrip[]): DirectionStats {
  const g = groupStats(trips);
  return { count: g.count, wins: g.wins, win_rate: g.win_rate, net_pnl: g.net_pnl };
}

/** Pure: metrics of the given round trips; `trades` and `open` only feed the counts and open fees. */
export function computeHowlMetrics(
  trades: readonly TradeRecord[],
  roundTrips: readonly RoundTrip[],
  open: readonly OpenLot[],
): HowlMetrics {
  const openFees = open.reduce((s, l) => s.plus(l.fee), ZERO);
  const all = groupStats(roundTrips);
  let grossWins = ZERO;
  let grossLosses = ZERO;
  let netWins = ZERO;
  let netLosses = ZERO;
  for (const t of roundTrips) {
    if (t.gross.gt(0)) grossWins = grossWins.plus(t.gross);
    else grossLosses = grossLosses.plus(t.gross.neg());
    if (t.net.gt(0)) netWins = netWins.plus(t.net);
    else netLosses = netLosses.plus(t.net.neg());
  }
  const buckets: Record<string, number> = {};
  let holdingSum = 0;
  for (const t of roundTrips) {
    holdingSum += t.holding_ms;
    const bucket = HOLDING_BUCKETS.find((b) => t.holding_ms < b.belowMs)!;
    buckets[bucket.label] = (buckets[bucket.label] ?? 0) + 1;
  }
  let winRun = 0;
  let lossRun = 0;
  let maxWins = 0;
  let maxLosses = 0;
  for (const t of roundTrips) {
    winRun = t.net.gt(0) ? winRun + 1 : 0;
    lossRun = t.net.lt(0) ? lossRun + 1 : 0;
    maxWins = Math.max(maxWins, winRun);
    maxLosses = Math.max(maxLosses, lossRun);
  }
  const nets = roundTrips.map((t) => t.net);
  const best = nets.length > 0 ? D.max(...nets) : ZERO;
  const worst = nets.length > 0 ? D.min(...nets) : ZERO;
  const netTotal = roundTrips.reduce((s, t) => s.plus(t.net), ZERO);
  const feesTotal = roundTrips.reduce((s, t) => s.plus(t.fees), ZERO);
  const exitTypes: Record<string, number> = {};
  for (const t of roundTrips) {
    const k = exitType(t.exit_meta);
    exitTypes[k] = (exitTypes[k] ?? 0) + 1;
  }
  return {
    total_trades: trades.length,
    total_round_trips: roundTrips.length,
    win_count: all.wins,
    loss_count: all.losses,
    breakeven_count: roundTrips.length - all.wins - all.losses,
    win_rate: all.win_rate,
    gross_pnl: all.gross_pnl,
    total_fees: all.total_fees,
    net_pnl: all.net_pnl,
    open_fees: num(openFees),
    open_lots: open.length,
    gross_wins: num(grossWins),
    gross_losses: num(grossLosses),
    gross_profit_factor: ratio(grossWins, grossLosses),
    net_profit_factor: ratio(netWins, netLosses),
    fdr: grossWins.isZero() ? null : num(feesTotal.div(grossWins).times(100), 4),
    long: directionStats(roundTrips.filter((t) => t.direction === "long")),
    short: directionStats(roundTrips.filter((t) => t.direction === "short")),
    holding_buckets: buckets,
    avg_holding_ms: roundTrips.length === 0 ? 0 : Math.round(holdingSum / roundTrips.length),
    max_consecutive_wins: maxWins,
    max_consecutive_losses: maxLosses,
    best_trade_pnl: num(best),
    worst_trade_pnl: num(worst),
    monster_dependency_pct: netTotal.gt(0) && best.gt(0) ? num(best.div(netTotal).times(100), 4) : null,
    strategy_stats: groupBy(roundTrips, (t) => t.strategy),
    instrument_stats: groupBy(roundTrips, (t) => t.instrument),
    exit_type_counts: exitTypes,
  };
}
