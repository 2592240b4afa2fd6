import { D, type Dec, wire } from "../core/decimal.ts";
import type { RunResult } from "../engine/engine.ts";
import type { FeeRates } from "./fee-schedule.ts";
import type { Ledger, RoundTrip } from "./ledger.ts";
import { dailyReturns, exposure, maxDrawdown, sharpe, sortino, tradeStats } from "./metrics.ts";
import type { ReplayTape } from "./replay-venue.ts";

/** The report's figures (`hl backtest --json` prints exactly this). Money: decimal strings (USD). */
export interface BacktestSummary {
  strategy: string;
  instrument: string;
  interval: string;
  from: string;
  to: string;
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
  sharpe: number | null;
  sortino: number | null;
  max_drawdown_usd: string;
  max_drawdown_pct: number;
  max_drawdown_duration_s: number;
  win_rate: number | null;
  profit_factor: number | null;
  exposure_pct: number;
  fees_usd: string;
  funding_usd: string;
  fills: number;
  orders_placed: number;
  orders_rejected: number;
  stop_reason: string;
  /** Round trips, oldest first; the last may still be open (closed_ms null). */
  trades: RoundTrip[];
}

export interface SummaryInput {
  strategy: string;
  instrument: string;
  interval: string;
  fromMs: number;
  toMs: number;
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
export type PerformanceFigures = Pick<
  BacktestSummary,
  | "capital_usd"
  | "pnl_usd"
  | "return_pct"
  | "sharpe"
  | "sortino"
  | "max_drawdown_usd"
  | "max_drawdown_pct"
  | "max_drawdown_duration_s"
  | "win_rate"
  | "profit_factor"
  | "exposure_pct"
  | "fees_usd"
  | "funding_usd"
>;

export interface PerformanceInput {
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
  const dd = maxDrawdown(equity, i.tape.t);
  const returns = dailyReturns(capital, equity, i.tape.t);
  const pnl = i.pnl.toDecimalPlaces(8);
  const stats = tradeStats(i.trips.filter((t) => t.closed_ms !== null).map((t) => t.net_pnl));
  return {
    capital_usd: wire(new D(capital)),
    pnl_usd: wire(pnl),
    return_pct: round(pnl.div(capital).times(100).toNumber()),
    sharpe: roundOrNull(sharpe(returns)),
    sortino: roundOrNull(sortino(returns)),
    max_drawdown_usd: wire(new D(dd.maxUsd).toDecimalPlaces(2)),
    max_drawdown_pct: round(dd.maxFraction * 100),
    max_drawdown_duration_s: Math.round(dd.durationMs / 1000),
    win_rate: roundOrNull(stats.winRate),
    profit_factor: roundOrNull(stats.profitFactor),
    exposure_pct: round(exposure(i.tape.qty) * 100),
    fees_usd: wire(i.fees.toDecimalPlaces(8)),
    funding_usd: wire(i.funding.toDecimalPlaces(8)),
  };
}

export function summarise(i: SummaryInput): BacktestSummary {
  const trips = i.ledger.roundTrips(i.lastClose);
  return {
    strategy: i.strategy,
    instrument: i.instrument,
    interval: i.interval,
    from: new Date(i.fromMs).toISOString(),
    to: new Date(i.toMs).toISOString(),
    params: i.params,
    fee_tier: i.fees.tier,
    maker_fee_rate: i.fees.maker,
    taker_fee_rate: i.fees.taker,
    latency_ms: i.latencyMs,
    slippage_bps: i.slippageBps,
    participation_pct: round(i.participation * 100),
    candles: i.tape.t.length,
    ...performanceFigures({
      capitalUsd: i.capitalUsd,
      tape: i.tape,
      pnl: i.ledger.netPnl(i.lastClose),
      trips,
      fees: i.ledger.fees,
      funding: i.ledger.funding,
    }),
    fills: i.ledger.fills.length,
    orders_placed: i.run.stats.total_placed,
    orders_rejected: i.run.stats.total_rejected,
    stop_reason: i.run.stopReason,
    trades: trips,
  };
}
