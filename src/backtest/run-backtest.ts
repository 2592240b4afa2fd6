import { UserError } from "../core/errors.ts";
import { Engine, type RunResult, type TickReport } from "../engine/engine.ts";
import type { OrderGateway, PlaceRequest } from "../engine/ports.ts";
import { resolveParams, resolveRiskLimits, resolveStrategy } from "../engine/runner.ts";
import { cancellableSleep } from "./cancel-point.ts";
import { DEFAULT_PARTICIPATION } from "./candle-fill-model.ts";
import { type DataGap, holesBetween, missingSlots } from "./data-gaps.ts";
import { feeRates, withCustomFees } from "./fee-schedule.ts";
import { Ledger } from "./ledger.ts";
import { CandleSeries, INTERVAL_MS, type ReplayHistory } from "./market-history.ts";
import { MarketTape } from "./market-tape.ts";
import { MemoryFillJournal, MemoryKvStore } from "./memory-store.ts";
import { ReplayVenue } from "./replay-venue.ts";
import { type BacktestSummary, summarise, type TickRecord, untouchedRisk } from "./summary.ts";
import { VirtualClock } from "./virtual-clock.ts";

export interface BacktestOptions {
  strategy: string;
  instrument: string;
  params?: Record<string, number>;
  risk?: Record<string, number>;
  /** Hyperliquid perp fee tier 0–6 (default 0). */
  feeTier?: number;
  /** Fee rates of one's own, in place of the tier's (fractions of notional). */
  makerFee?: string;
  takerFee?: string;
  /** Order and cancel latency, ms of market time (default 0). */
  latencyMs?: number;
  /** A taker meets the touch at its arrival moved this many bps against it, never beyond its limit (default 1). */
  slippageBps?: number;
  /** Our fills in a candle are at most this share of its volume, 0–1 (default 0.1). */
  participation?: number;
  fromMs: number;
  toMs: number;
  /** Candles (from before `fromMs` too, as warm-up for the snapshot's candle window) and funding. */
  history: ReplayHistory;
  szDecimals: number;
  /** The engine's notices (refusals, risk); default: none. */
  log?: (line: string) => void;
  /** Every order batch the engine sends, with the market time it is sent at (the parity check's record). */
  onPlace?: (orders: readonly PlaceRequest[], atMs: number) => void;
  /** Ticks run so far out of the run's total, after each tick (long runs report progress with it). */
  onProgress?: (done: number, total: number) => void;
  /** Cancels the run between two ticks (it then rejects with "backtest cancelled"). */
  signal?: AbortSignal;
  /** Data gaps are an error instead of a warning. */
  strict?: boolean;
}

interface BacktestResult {
  summary: BacktestSummary;
  venue: ReplayVenue;
  ledger: Ledger;
  run: RunResult;
}

/** Closed candles in every snapshot (the live adapter's 30-minute window of 1 m candles). */
const CANDLE_WINDOW = 30;
export const DEFAULT_SLIPPAGE_BPS = 1;
const HOUR_MS = 3_600_000;

/**
 * `hl backtest`: the live engine, unchanged, ticking once per candle on a virtual clock against a
 * venue that replays the history; state and fills stay in memory. Returns the report's figures.
 */
export async function runBacktest(o: BacktestOptions): Promise<BacktestResult> {
  const strategy = resolveStrategy(o.strategy);
  const params = resolveParams(strategy, o.params);
  const limits = resolveRiskLimits(o.risk);
  const fees = withCustomFees(feeRates(o.feeTier ?? 0), {
    ...(o.makerFee !== undefined ? { maker: o.makerFee } : {}),
    ...(o.takerFee !== undefined ? { taker: o.takerFee } : {}),
  });
  const latencyMs = o.latencyMs ?? 0;
  const slippageBps = o.slippageBps ?? DEFAULT_SLIPPAGE_BPS;
  if (!Number.isFinite(o.fromMs) || !Number.isFinite(o.toMs))
    throw new UserError("--from and --to must be dates");
  if (o.fromMs >= o.toMs)
    throw new UserError(
      `--from (${new Date(o.fromMs).toISOString()}) must be before --to (${new Date(o.toMs).toISOString()})`,
    );
  if (!(latencyMs >= 0)) throw new UserError(`--latency-ms must be 0 or more, got ${latencyMs}`);
  if (!(slippageBps >= 0)) throw new UserError(`--slippage-bps must be 0 or more, got ${slippageBps}`);
  const participation = o.participation ?? DEFAULT_PARTICIPATION;
  if (!(participation > 0 && participation <= 1))
    throw new UserError(`--participation-pct must be above 0 and at most 100, got ${participation * 100}`);
  const intervalMs = INTERVAL_MS[o.history.interval];
  const series = new CandleSeries(o.history.candles, intervalMs);
  const first = series.firstAtOrAfter(o.fromMs);
  const end = series.firstAtOrAfter(o.toMs);
  if (end - first <= 0)
    throw new UserError(
      `no ${o.history.interval} candles for ${o.instrument} from ${new Date(o.fromMs).toISOString()} to ${new Date(o.toMs).toISOString()}`,
    );
  // The run starts at the first candle's open and ticks at every close through the last one.
  const startMs = series.t[first]!;
  const lastClose = series.t[end - 1]! + intervalMs;
  const ticks = Math.round((lastClose - startMs) / intervalMs) + 1;
  const clock = new VirtualClock(startMs);
  const tape = new MarketTape(o.history.trades ?? [], o.history.books ?? []);
  const dataGaps = gapsOf(o.history, series, tape, o.fromMs, startMs, lastClose);
  if (o.strict && dataGaps.length > 0)
    throw new UserError(
      `--strict: ${dataGaps.map((g) => `data gap: ${g.dataset} from ${g.from} to ${g.to}`).join("; ")}`,
    );
  const ticked: TickRecord = { risk: untouchedRisk(), refused: 0, ticks: 0 };
  const onTick = (r: TickReport) => {
    ticked.ticks = r.tick;
    ticked.refused += r.rejected;
    const risk = ticked.risk;
    if (r.risk === "reduce_only") {
      risk.reduce_only_ticks += 1;
      if (risk.reduce_only_tick === null) {
        risk.reduce_only_tick = r.tick;
        risk.reduce_only_from = new Date(clock.now()).toISOString();
      }
    } else if (r.risk === "halt" && risk.halt_tick === null) {
      risk.halt_tick = r.tick;
      risk.halted_at = new Date(clock.now()).toISOString();
    }
  };
  const ledger = new Ledger();
  const venue = new ReplayVenue(
    series,
    o.history.funding,
    {
      instrument: o.instrument,
      szDecimals: o.szDecimals,
      now: clock.now,
      fees,
      latencyMs,
      slippageBps,
      participation,
      candleWindow: strategy.needs?.candles ? CANDLE_WINDOW : 0,
      ledger,
      startMs,
    },
    tape.empty ? undefined : tape,
  );
  const engine = new Engine({
    strategy,
    params,
    instrument: o.instrument,
    market: venue,
    gateway: o.onPlace ? tapPlace(venue, clock.now, o.onPlace) : venue,
    dataDir: "",
    tickMs: intervalMs,
    maxTicks: ticks,
    resume: false,
    limits,
    requoteBps: 2,
    mode: "backtest",
    network: "backtest",
    log: o.log ? (line) => o.log!(`${new Date(clock.now()).toISOString()} ${line}`) : () => {},
    now: clock.now,
    sleep: cancellable(
      o.onProgress ? progressSleep(clock.sleep, ticks, o.onProgress) : clock.sleep,
      o.signal,
    ),
    persistence: { store: new MemoryKvStore(), fills: new MemoryFillJournal(), everyTick: false },
    tickLines: false,
    onTick,
  });
  const run = await engine.run();
  if (run.haltReason) ticked.risk.halt_reason = run.haltReason;
  const summary = summarise({
    strategy: strategy.id,
    instrument: o.instrument,
    interval: o.history.interval,
    fromMs: startMs,
    requestedFromMs: o.fromMs,
    requestedToMs: o.toMs,
    dataEndMs: series.t[series.length - 1]! + intervalMs,
    intervalMs,
    ticked,
    dataGaps,
    params,
    fees,
    latencyMs,
    slippageBps,
    participation,
    capitalUsd: limits.capital_usd,
    ledger,
    tape: venue.tape,
    lastClose: venue.lastClose(),
    run,
  });
  return { summary, venue, ledger, run };
}

/**
 * The period's data gaps: candles missing inside [--from, last close), funding hours without a rate
 * over the replayed range (when the history has funding at all... or none: then all of it), and holes
 * in a recording of trades and books.
 */
function gapsOf(
  history: ReplayHistory,
  series: CandleSeries,
  tape: MarketTape,
  requestedFromMs: number,
  startMs: number,
  lastClose: number,
): DataGap[] {
  const interval = INTERVAL_MS[history.interval];
  const gaps = missingSlots(`candles ${history.interval}`, series.t, interval, requestedFromMs, lastClose);
  const fundingTimes = history.funding.map((f) => f.t);
  gaps.push(...missingSlots("funding", fundingTimes, HOUR_MS, startMs, lastClose));
  if (!tape.empty) gaps.push(...holesBetween("trades and books", tape.coverage(), startMs, lastClose));
  return gaps;
}

/** The gateway with every `place` reported first (nothing else changes). */
function tapPlace(
  g: OrderGateway,
  now: () => number,
  onPlace: (orders: readonly PlaceRequest[], atMs: number) => void,
): OrderGateway {
  return {
    place: (orders) => {
      onPlace(orders, now());
      return g.place(orders);
    },
    cancel: (instrument, orders) => g.cancel(instrument, orders),
    openOrders: (instrument) => g.openOrders(instrument),
    fills: (instrument, sinceMs) => g.fills(instrument, sinceMs),
    ...(g.openOrdersNow ? { openOrdersNow: g.openOrdersNow.bind(g) } : {}),
    ...(g.fillsNow ? { fillsNow: g.fillsNow.bind(g) } : {}),
    position: (instrument) => g.position(instrument),
  };
}

/** The virtual clock's wait, reporting each tick done first. */
function progressSleep(
  sleep: (ms: number) => Promise<void>,
  total: number,
  onProgress: (done: number, total: number) => void,
): (ms: number) => Promise<void> {
  let done = 0;
  return (ms) => {
    done += 1;
    onProgress(done, total);
    return sleep(ms);
  };
}

function cancellable(
  sleep: (ms: number) => Promise<void>,
  signal: AbortSignal | undefined,
): (ms: number) => Promise<void> {
  return signal ? cancellableSleep(sleep, signal) : sleep;
}
