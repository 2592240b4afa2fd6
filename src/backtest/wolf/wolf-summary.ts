import { D, wire } from "../../core/decimal.ts";
import type { WolfConfig } from "../../wolf/config.ts";
import type { TradeRecord } from "../../wolf/trades.ts";
import { missingSlots } from "../data-gaps.ts";
import type { FeeRates } from "../fee-schedule.ts";
import type { RoundTrip } from "../ledger.ts";
import type { ReplayTape } from "../replay-venue.ts";
import { type BacktestSummary, dataWarnings, performanceFigures, untouchedRisk } from "../summary.ts";
import type { CoinReplay } from "./coin-replay.ts";
import type { ReplayWolfPort } from "./replay-wolf-port.ts";

/** A round trip of one coin (one slot's position from entry to close). */
export interface WolfTrade extends RoundTrip {
  coin: string;
}

/**
 * `hl wolf backtest --json`: the figures of `hl backtest` (same names and definitions, over the
 * account's total equity across every coin), plus what WOLF did: ticks, entries by signal source,
 * exits by rule, the replayed coins and the effective config.
 */
export interface WolfBacktestSummary extends Omit<BacktestSummary, "trades"> {
  preset: string;
  coins: string[];
  ticks: number;
  /** Entry fills by signal source (`scanner`, `movers_signal`, `movers_immediate`, …). */
  entries_by_source: Record<string, number>;
  /** Exit fills by rule (`dsl_close`, `hard_stop`, `stagnation_tp`, `conviction_collapse`, `daily_loss_limit`, …). */
  exits_by_reason: Record<string, number>;
  config: WolfConfig;
  /** Round trips of every coin, by open time (then coin); still-open ones are marked to the last close. */
  trades: WolfTrade[];
}

interface WolfSummaryInput {
  preset: string;
  config: WolfConfig;
  interval: string;
  fromMs: number;
  toMs: number;
  requestedFromMs: number;
  requestedToMs: number;
  intervalMs: number;
  fees: FeeRates;
  latencyMs: number;
  slippageBps: number;
  participation: number;
  coins: readonly CoinReplay[];
  port: ReplayWolfPort;
  tape: ReplayTape;
  ticks: number;
  /** The runner's trades.jsonl (entry source or exit reason of every fill). */
  trades: readonly TradeRecord[];
}

/** The config's numbers the report's header shows (the whole config is in `config`). */
const HEADLINE_PARAMS = [
  "total_budget",
  "max_slots",
  "leverage",
  "margin_per_slot",
  "tick_interval_s",
  "max_negative_roe",
  "daily_loss_limit",
  "scanner_score_threshold",
  "movers_confidence_threshold",
] as const;

function countBy(keys: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of [...keys].sort()) out[k] = (out[k] ?? 0) + 1;
  return out;
}

export function summariseWolf(i: WolfSummaryInput): WolfBacktestSummary {
  let pnl = new D(0);
  let fees = new D(0);
  let funding = new D(0);
  let fills = 0;
  const trades: WolfTrade[] = [];
  for (const c of i.coins) {
    const mark = c.lastCloseRaw();
    pnl = pnl.plus(c.ledger.netPnl(mark));
    fees = fees.plus(c.ledger.fees);
    funding = funding.plus(c.ledger.funding);
    fills += c.ledger.fills.length;
    for (const t of c.ledger.roundTrips(mark)) trades.push({ coin: c.coin, ...t });
  }
  trades.sort((a, b) => a.opened_ms - b.opened_ms || a.coin.localeCompare(b.coin));
  const params: Record<string, number> = {};
  for (const k of HEADLINE_PARAMS) params[k] = i.config[k];
  const entries = i.trades.filter((t) => t.meta.startsWith("entry:")).map((t) => t.meta.slice(6));
  const exits = i.trades.filter((t) => !t.meta.startsWith("entry:")).map((t) => t.meta.split(":")[0]!);
  const data_gaps = i.coins.flatMap((c) =>
    missingSlots(`${c.coin} candles ${i.interval}`, c.series.t, i.intervalMs, i.fromMs, i.toMs),
  );
  let dataEndMs = -Infinity;
  for (const c of i.coins) dataEndMs = Math.max(dataEndMs, c.series.t[c.series.length - 1]! + i.intervalMs);
  const figures = performanceFigures({
    capitalUsd: i.config.total_budget,
    tape: i.tape,
    pnl,
    trips: trades,
    fees,
    funding,
  });
  const requested_to = new Date(i.requestedToMs).toISOString();
  const open = i.coins
    .filter((c) => !c.ledger.qty.isZero())
    .map(
      (c) =>
        `position ${c.coin} ${wire(c.ledger.qty)} @ ${wire(c.ledger.avg.toDecimalPlaces(8))} left open at the end (marked at ${c.lastCloseRaw()})`,
    );
  const warnings = [
    ...open,
    ...dataWarnings({ data_gaps, requested_to, ...figures }, dataEndMs, i.requestedToMs),
  ];
  return {
    strategy: "wolf",
    preset: i.preset,
    instrument: `${i.coins.length} coins`,
    coins: i.coins.map((c) => c.coin),
    interval: i.interval,
    from: new Date(i.fromMs).toISOString(),
    to: new Date(i.toMs).toISOString(),
    requested_from: new Date(i.requestedFromMs).toISOString(),
    requested_to,
    params,
    fee_tier: i.fees.tier,
    maker_fee_rate: i.fees.maker,
    taker_fee_rate: i.fees.taker,
    latency_ms: i.latencyMs,
    slippage_bps: i.slippageBps,
    participation_pct: Number((i.participation * 100).toFixed(6)),
    candles: i.tape.t.length,
    ticks: i.ticks,
    ...figures,
    fills,
    orders_placed: i.port.iocsSent,
    orders_rejected: i.port.iocsUnfilled,
    stop_reason: "end of data",
    // WOLF has no engine risk limits: its own (daily loss limit, hard stops) show in exits_by_reason.
    risk: untouchedRisk(),
    // Several coins: the positions left open are in the warnings, one line each.
    open_position: null,
    data_gaps,
    warnings,
    entries_by_source: countBy(entries),
    exits_by_reason: countBy(exits),
    config: i.config,
    trades,
  };
}
