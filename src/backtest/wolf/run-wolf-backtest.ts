import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../../core/errors.ts";
import { DEFAULT_MARKETS } from "../../sim/venue/markets.ts";
import { scratchRoot } from "../../store/scratch-root.ts";
import type { WolfConfig } from "../../wolf/config.ts";
import { WolfRunner } from "../../wolf/runner.ts";
import { readTrades } from "../../wolf/trades.ts";
import { CancelPoint } from "../cancel-point.ts";
import { DEFAULT_PARTICIPATION } from "../candle-fill-model.ts";
import { feeRates } from "../fee-schedule.ts";
import { sizeDecimals } from "../load-history.ts";
import { INTERVAL_MS } from "../market-history.ts";
import type { ReplayTape } from "../replay-venue.ts";
import { DEFAULT_SLIPPAGE_BPS } from "../run-backtest.ts";
import { VirtualClock } from "../virtual-clock.ts";
import { CoinReplay } from "./coin-replay.ts";
import { ReplayWolfPort } from "./replay-wolf-port.ts";
import type { UniverseHistory } from "./universe.ts";
import { summariseWolf, type WolfBacktestSummary } from "./wolf-summary.ts";

/** The leverage cap of a coin the sim world does not list (Hyperliquid's highest). */
const UNKNOWN_MAX_LEVERAGE = 50;

interface WolfBacktestOptions {
  preset: string;
  config: WolfConfig;
  universe: UniverseHistory;
  fromMs: number;
  toMs: number;
  /** Hyperliquid perp fee tier 0–6 (default 0). */
  feeTier?: number;
  /** Order latency, ms of market time (default 0). */
  latencyMs?: number;
  /** Fills this many bps worse than the open they fill at (default 1). */
  slippageBps?: number;
  /** Our fills in a candle are at most this share of its volume, 0–1 (default 0.1). */
  participation?: number;
  /** The runner's notices (entries, exits, refusals); default: none. */
  log?: (line: string) => void;
  /** Candles replayed so far out of the run's total. */
  onProgress?: (done: number, total: number) => void;
  /** Stops the run between two candles (the run then rejects). */
  signal?: AbortSignal;
}

interface WolfBacktestResult {
  summary: WolfBacktestSummary;
  /** Per-candle samples; `close` is the chart coin's. */
  tape: ReplayTape;
  chartCoin: string;
}

/** The coin whose price the report draws: BTC when replayed (the market's reference), else the first. */
function chartCoinOf(coins: readonly string[]): string {
  return coins.includes("BTC") ? "BTC" : coins[0]!;
}

/**
 * `hl wolf backtest`: the live WolfRunner — its tick (`planTick`, the scanner and movers code, entries)
 * and its Protector (DSL, hard stop, timed exits, daily loss limit) — driven on a virtual clock over
 * the recorded universe through ReplayWolfPort. Every candle close goes to the protective path as a
 * streamed price would; a tick runs every `tick_interval_s` of market time. The runner's files
 * (state, guards, scan history, trades) live in a scratch directory removed afterwards.
 */
export async function runWolfBacktest(o: WolfBacktestOptions): Promise<WolfBacktestResult> {
  const fees = feeRates(o.feeTier ?? 0);
  const latencyMs = o.latencyMs ?? 0;
  const slippageBps = o.slippageBps ?? DEFAULT_SLIPPAGE_BPS;
  if (!(o.fromMs < o.toMs))
    throw new UserError(
      `--from (${new Date(o.fromMs).toISOString()}) must be before --to (${new Date(o.toMs).toISOString()})`,
    );
  if (!(latencyMs >= 0)) throw new UserError(`--latency-ms must be 0 or more, got ${latencyMs}`);
  if (!(slippageBps >= 0)) throw new UserError(`--slippage-bps must be 0 or more, got ${slippageBps}`);
  const participation = o.participation ?? DEFAULT_PARTICIPATION;
  if (!(participation > 0 && participation <= 1))
    throw new UserError(`--participation-pct must be above 0 and at most 100, got ${participation * 100}`);
  const intervalMs = INTERVAL_MS[o.universe.interval];
  const coins = o.universe.coins.map((h) => {
    const known = DEFAULT_MARKETS.find((m) => m.name === h.coin);
    const szDecimals = sizeDecimals(h.coin, {
      interval: o.universe.interval,
      candles: h.candles,
      funding: [],
    });
    return new CoinReplay(h, intervalMs, szDecimals, known?.maxLeverage ?? UNKNOWN_MAX_LEVERAGE);
  });
  // From the first candle opening at or after --from to the last close before --to, on the interval grid.
  let startMs = Infinity;
  let endMs = -Infinity;
  for (const c of coins) {
    const s = c.series;
    const first = s.firstAtOrAfter(o.fromMs);
    const end = s.firstAtOrAfter(o.toMs);
    if (end > first) {
      startMs = Math.min(startMs, s.t[first]!);
      endMs = Math.max(endMs, s.t[end - 1]! + intervalMs);
    }
  }
  if (!Number.isFinite(startMs))
    throw new UserError(
      `no ${o.universe.interval} candles from ${new Date(o.fromMs).toISOString()} to ${new Date(o.toMs).toISOString()}`,
    );
  const steps = Math.round((endMs - startMs) / intervalMs);
  const clock = new VirtualClock(startMs);
  const port = new ReplayWolfPort(coins, {
    now: clock.now,
    fees,
    latencyMs,
    slippageBps,
    participation,
    endMs,
    waitUntil: (ms) => {
      clock.advanceTo(ms);
      for (const c of coins) c.advanceTo(ms);
    },
  });
  const chartCoin = chartCoinOf(coins.map((c) => c.coin));
  const chart = coins.find((c) => c.coin === chartCoin)!;
  const tape: ReplayTape = { t: [], open: [], high: [], low: [], close: [], pnl: [], qty: [] };
  const config = { ...o.config };
  const tickMs = config.tick_interval_s * 1000;
  const dir = mkdtempSync(join(scratchRoot(), "hl-wolf-backtest-"));
  try {
    for (const c of coins) c.advanceTo(startMs);
    const runner = await WolfRunner.open({
      port,
      dataDir: dir,
      preset: o.preset,
      config,
      fresh: true,
      stream: false,
      log: o.log ?? (() => {}),
    });
    // WOLF's steps are slow (the runner saves its files each tick): the event loop turns often.
    const cancel = o.signal ? new CancelPoint(o.signal, 8) : undefined;
    let nextTick = startMs;
    let ticks = 0;
    try {
      for (let k = 0; k <= steps; k++) {
        await cancel?.check();
        // The step's close on the grid (an order out with latency may already have moved time past it).
        const now = startMs + k * intervalMs;
        clock.advanceTo(now);
        for (const c of coins) c.advanceTo(clock.now());
        // At the period's last close nothing is decided: an order sent then could not fill inside it.
        const last = k === steps;
        if (!last && now >= nextTick) {
          await runner.tick();
          ticks += 1;
          while (nextTick <= now) nextTick += tickMs;
        } else if (!last && runner.protector.guardedCoins().length > 0) {
          // Between ticks each close reaches the protective path, as a streamed price would.
          runner.onMids(await port.mids());
        }
        await runner.settled();
        if (k > 0) {
          sample(tape, coins, chart, now - intervalMs);
          o.onProgress?.(k, steps);
        }
      }
    } finally {
      await runner.close();
    }
    const summary = summariseWolf({
      preset: o.preset,
      config,
      interval: o.universe.interval,
      fromMs: startMs,
      toMs: endMs,
      requestedFromMs: o.fromMs,
      requestedToMs: o.toMs,
      intervalMs,
      fees,
      latencyMs,
      slippageBps,
      participation,
      coins,
      port,
      tape,
      ticks,
      trades: readTrades(dir),
    });
    return { summary, tape, chartCoin };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One equity sample at the candle opening at `t`: the account's PnL over every coin, the open positions. */
function sample(tape: ReplayTape, coins: readonly CoinReplay[], chart: CoinReplay, t: number): void {
  let pnl = 0;
  let open = 0;
  for (const c of coins) {
    if (!c.priced) continue;
    pnl += c.ledger.pnlAt(c.mid());
    if (c.ledger.qtyN !== 0) open += 1;
  }
  tape.t.push(t);
  const bar = chart.lastBar();
  tape.open.push(bar.o);
  tape.high.push(bar.h);
  tape.low.push(bar.l);
  tape.close.push(chart.priced ? chart.mid() : 0);
  tape.pnl.push(pnl);
  tape.qty.push(open);
}
