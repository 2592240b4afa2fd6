import { D, type Dec, wire } from "../core/decimal.ts";
import type { RunResult } from "../engine/engine.ts";
import type { DataGap } from "./data-gaps.ts";
import type { FeeRates } from "./fee-schedule.ts";
import type { Ledger, RoundTrip } from "./ledger.ts";
import {
  cagr,
  calmar,
  dailyReturns,
  expectancy,
  exposure,
  maxDrawdown,
  sharpe,
  sortino,
  tradeStats,
} from "./metrics.ts";
import type { ReplayTape } from "./replay-venue.ts";

/** Sharpe and Sortino from fewer daily returns than this are noise: they are not given. */
export const MIN_DAILY_RETURNS = 30;

/** When the risk limits cut the run short: reduce-only (from which tick) and the hard stop. */
interface RiskRecord {
  /** First tick (and its market time) the engine could only reduce; null when it never was. */
  reduce_only_tick: number | null;
  reduce_only_from: string | null;
  /** Ticks spent reduce-only. */
  reduce_only_ticks: number;
  halt_tick: number | null;
  halted_at: string | null;
  halt_reason: string | null;
}

/** The position still open when the run ended (marked to the last close). */
interface OpenPosition {
  qty: string;
  entry_px: string;
  mark_px: string;
  unrealized_pnl_usd: string;
}

/** The report's figures (`hl backtest --json` prints exactly this). Money: decimal strings (USD). */
export interface BacktestSummary {
  strategy: string;
  instrument: string;
  interval: string;
  /** The range really replayed: from the first candle's open to the last replayed candle's close. */
  from: string;
  to: string;
  /** The range asked for (--from, --to). */
  requested_from: string;
  requested_to: string;
  params: Record<string, number>;
  fee_tier: number;
  maker_fee_rate: string;
  taker_fee_rate: string;
  latency_ms: number;
  slippage_bps: number;
  /** Our fills in a candle replayed from its range are at most this share of its volume. */
  participation_pct: number;
  candles: number;
  capital_usd: string;
  pnl_usd: string;
  return_pct: number;
  /** Null with fewer than MIN_DAILY_RETURNS daily returns (see daily_returns). */
  sharpe: number | null;
  sortino: number | null;
  /** Daily returns the Sharpe and Sortino are computed from. */
  daily_returns: number;
  /** Compound annual growth rate, % (null under 30 days); Calmar: CAGR over the max drawdown fraction. */
  cagr_pct: number | null;
  calmar: number | null;
  /** Largest fall of equity from its running peak, the starting capital being the first peak (the report draws the same). */
  max_drawdown_usd: string;
  max_drawdown_pct: number;
  max_drawdown_duration_s: number;
  win_rate: number | null;
  profit_factor: number | null;
  /** Mean net PnL of a closed trade (USD), and its mean duration (s); null without closed trades. */
  expectancy_usd: string | null;
  avg_trade_duration_s: number | null;
  exposure_pct: number;
  /** The instrument's own return over the run, first open to last close (the report's benchmark line). */
  buy_and_hold_return_pct: number | null;
  fees_usd: string;
  funding_usd: string;
  fills: number;
  orders_placed: number;
  /** Orders refused, by the engine's risk filter or by the venue (the notices say why). */
  orders_rejected: number;
  stop_reason: string;
  /** Closed round trips by the tag of the order that closed them (the strategy's reason; "untagged" without one). */
  exits_by_reason: Record<string, number>;
  risk: RiskRecord;
  open_position: OpenPosition | null;
  /** Stretches of the period a dataset has nothing for. */
  data_gaps: DataGap[];
  /** Everything that made the run trade less than asked, or its figures weaker, one line each. */
  warnings: string[];
  /** Round trips, oldest first; the last may still be open (closed_ms null). */
  trades: RoundTrip[];
}

/** What the run's engine ticks said about its risk and its refusals. */
export interface TickRecord {
  risk: RiskRecord;
  /** Orders refused over the run (risk filter and venue). */
  refused: number;
  ticks: number;
}

interface SummaryInput {
  strategy: string;
  instrument: string;
  interval: string;
  fromMs: number;
  requestedFromMs: number;
  requestedToMs: number;
  /** Close of the last candle the history holds. */
  dataEndMs: number;
  intervalMs: number;
  ticked: TickRecord;
  dataGaps: DataGap[];
  params: Record<string, number>;
  fees: FeeRates;
  latencyMs: number;
  slippageBps: number;
  participation: number;
  capitalUsd: number;
  ledger: Ledger;
  tape: ReplayTape;
  lastClose: string;
  run: RunResult;
}

/** Ratios are rounded to 6 significant decimals so the printed report stays short and stable. */
function round(x: number, dp = 6): number {
  return Number(x.toFixed(dp));
}

function roundOrNull(x: number | null, dp = 6): number | null {
  return x === null ? null : round(x, dp);
}

/** The figures every backtest reports, from capital to funding, in the summary's order. */
type PerformanceFigures = Pick<
  BacktestSummary,
  | "capital_usd"
  | "pnl_usd"
  | "return_pct"
  | "sharpe"
  | "sortino"
  | "daily_returns"
  | "cagr_pct"
  | "calmar"
  | "max_drawdown_usd"
  | "max_drawdown_pct"
  | "max_drawdown_duration_s"
  | "win_rate"
  | "profit_factor"
  | "expectancy_usd"
  | "avg_trade_duration_s"
  | "exposure_pct"
  | "buy_and_hold_return_pct"
  | "fees_usd"
  | "funding_usd"
>;

interface PerformanceInput {
  capitalUsd: number;
  tape: ReplayTape;
  /** Net PnL at the end, marked at the last close. */
  pnl: Dec;
  trips: readonly RoundTrip[];
  fees: Dec;
  funding: Dec;
}

export function performanceFigures(i: PerformanceInput): PerformanceFigures {
  const capital = i.capitalUsd;
  const equity = i.tape.pnl.map((p) => capital + p);
  const t = i.tape.t;
  // The starting capital is the first peak: a loss on the first candle is a drawdown too.
  const dd = maxDrawdown([capital, ...equity], t.length > 0 ? [t[0]!, ...t] : []);
  const returns = dailyReturns(capital, equity, i.tape.t);
  const enough = returns.length >= MIN_DAILY_RETURNS;
  const pnl = i.pnl.toDecimalPlaces(8);
  const closed = i.trips.filter((x) => x.closed_ms !== null);
  const stats = tradeStats(closed.map((x) => x.net_pnl));
  const runMs = t.length > 0 ? t[t.length - 1]! - t[0]! + (t.length > 1 ? t[1]! - t[0]! : 0) : 0;
  const growth = cagr(capital, equity.length > 0 ? equity[equity.length - 1]! : capital, runMs);
  const exp = expectancy(closed.map((x) => x.net_pnl));
  const firstOpen = i.tape.open[0] ?? 0;
  const lastClose = i.tape.close[i.tape.close.length - 1] ?? 0;
  return {
    capital_usd: wire(new D(capital)),
    pnl_usd: wire(pnl),
    return_pct: round(pnl.div(capital).times(100).toNumber()),
    sharpe: enough ? roundOrNull(sharpe(returns)) : null,
    sortino: enough ? roundOrNull(sortino(returns)) : null,
    daily_returns: returns.length,
    cagr_pct: growth === null ? null : round(growth * 100),
    calmar: roundOrNull(calmar(growth, dd.maxFraction)),
    max_drawdown_usd: wire(new D(dd.maxUsd).toDecimalPlaces(2)),
    max_drawdown_pct: round(dd.maxFraction * 100),
    max_drawdown_duration_s: Math.round(dd.durationMs / 1000),
    win_rate: roundOrNull(stats.winRate),
    profit_factor: roundOrNull(stats.profitFactor),
    expectancy_usd: exp === null ? null : wire(exp.toDecimalPlaces(8)),
    avg_trade_duration_s:
      closed.length === 0
        ? null
        : Math.round(closed.reduce((a, x) => a + (x.closed_ms! - x.opened_ms), 0) / closed.length / 1000),
    exposure_pct: round(exposure(i.tape.qty) * 100),
    buy_and_hold_return_pct: firstOpen > 0 && lastClose > 0 ? round((lastClose / firstOpen - 1) * 100) : null,
    fees_usd: wire(i.fees.toDecimalPlaces(8)),
    funding_usd: wire(i.funding.toDecimalPlaces(8)),
  };
}

export function summarise(i: SummaryInput): BacktestSummary {
  const trips = i.ledger.roundTrips(i.lastClose);
  const t = i.tape.t;
  const replayedTo = t.length > 0 ? t[t.length - 1]! + i.intervalMs : i.fromMs;
  const figures = performanceFigures({
    capitalUsd: i.capitalUsd,
    tape: i.tape,
    pnl: i.ledger.netPnl(i.lastClose),
    trips,
    fees: i.ledger.fees,
    funding: i.ledger.funding,
  });
  const l = i.ledger;
  const open_position: OpenPosition | null = l.qty.isZero()
    ? null
    : {
        qty: wire(l.qty),
        entry_px: wire(l.avg.toDecimalPlaces(8)),
        mark_px: i.lastClose,
        unrealized_pnl_usd: wire(new D(i.lastClose).minus(l.avg).times(l.qty).toDecimalPlaces(8)),
      };
  const base = {
    strategy: i.strategy,
    instrument: i.instrument,
    interval: i.interval,
    from: new Date(i.fromMs).toISOString(),
    to: new Date(replayedTo).toISOString(),
    requested_from: new Date(i.requestedFromMs).toISOString(),
    requested_to: new Date(i.requestedToMs).toISOString(),
    params: i.params,
    fee_tier: i.fees.tier,
    maker_fee_rate: i.fees.maker,
    taker_fee_rate: i.fees.taker,
    latency_ms: i.latencyMs,
    slippage_bps: i.slippageBps,
    participation_pct: round(i.participation * 100),
    candles: t.length,
    ...figures,
    fills: l.fills.length,
    orders_placed: i.run.stats.total_placed,
    orders_rejected: i.ticked.refused,
    stop_reason: i.run.stopReason,
    exits_by_reason: exitsByReason(trips),
    risk: i.ticked.risk,
    open_position,
    data_gaps: i.dataGaps,
  };
  return { ...base, warnings: runWarnings(base, i), trades: trips };
}

/** Closed round trips counted by exit reason, reasons in alphabetical order. */
function exitsByReason(trips: readonly RoundTrip[]): Record<string, number> {
  const out: Record<string, number> = {};
  const reasons = trips.filter((t) => t.closed_ms !== null).map((t) => t.exit_reason ?? "untagged");
  for (const r of reasons.sort()) out[r] = (out[r] ?? 0) + 1;
  return out;
}

/** The warnings every backtest gives about its data and its statistics: gaps, data ending early, thin Sharpe. */
export function dataWarnings(
  s: Pick<BacktestSummary, "data_gaps" | "requested_to" | "sharpe" | "daily_returns">,
  dataEndMs: number,
  requestedToMs: number,
): string[] {
  const out: string[] = [];
  for (const g of s.data_gaps) out.push(`data gap: ${g.dataset} from ${g.from} to ${g.to}`);
  if (dataEndMs < requestedToMs)
    out.push(`data ends at ${new Date(dataEndMs).toISOString()}, before --to ${s.requested_to}`);
  if (s.sharpe === null && s.daily_returns < MIN_DAILY_RETURNS)
    out.push(
      `Sharpe and Sortino n/a: ${s.daily_returns} daily return${s.daily_returns === 1 ? "" : "s"} (${MIN_DAILY_RETURNS} needed)`,
    );
  return out;
}

/** "n/a (1 daily return)" — what the text and the report show for a ratio left out. */
export function ratioNotGiven(dailyReturns: number): string {
  return `n/a (${dailyReturns} daily return${dailyReturns === 1 ? "" : "s"})`;
}

/** A risk record of a run no engine risk limit touched. */
export function untouchedRisk(): RiskRecord {
  return {
    reduce_only_tick: null,
    reduce_only_from: null,
    reduce_only_ticks: 0,
    halt_tick: null,
    halted_at: null,
    halt_reason: null,
  };
}

/** One line for each way the run fell short of what was asked (the terminal, --json and the report show them). */
function runWarnings(
  s: Omit<BacktestSummary, "warnings" | "trades">,
  i: Pick<SummaryInput, "requestedToMs" | "dataEndMs" | "ticked">,
): string[] {
  const out: string[] = [];
  const r = s.risk;
  if (r.halt_tick !== null)
    out.push(
      `halted at ${r.halted_at} (tick ${r.halt_tick}): ${r.halt_reason}; the run stopped there, replayed ${s.from} → ${s.to} of ${s.requested_from} → ${s.requested_to}`,
    );
  if (r.reduce_only_tick !== null)
    out.push(
      `reduce-only from ${r.reduce_only_from} (tick ${r.reduce_only_tick}): a risk limit was reached; ${r.reduce_only_ticks} of ${i.ticked.ticks} ticks could only reduce the position`,
    );
  if (s.open_position)
    out.push(
      `position ${s.open_position.qty} @ ${s.open_position.entry_px} left open at the end (marked at ${s.open_position.mark_px}: unrealized ${s.open_position.unrealized_pnl_usd} USD)`,
    );
  out.push(...dataWarnings(s, i.dataEndMs, i.requestedToMs));
  if (s.orders_rejected > 0)
    out.push(`${s.orders_rejected} order(s) refused by the risk limits or the venue: the notices say why`);
  return out;
}
