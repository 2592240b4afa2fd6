import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { UserError } from "../core/errors.ts";
import { canonicalInstrument, instrumentToCoin } from "../exchange/symbols.ts";
import { CANDLE_INTERVALS, type CandleInterval } from "../market/types.ts";
import { writeFileAtomic } from "../store/atomic.ts";
import { type BreakdownPeriod, type BreakdownRow, breakdown } from "./breakdown.ts";
import { writeExports } from "./export.ts";
import { loadHistory, sizeDecimals } from "./load-history.ts";
import { type LookaheadResult, lookaheadCheck } from "./lookahead-check.ts";
import { INTERVAL_MS } from "./market-history.ts";
import { renderReportHtml } from "./report-html.ts";
import { runBacktest } from "./run-backtest.ts";
import { type BacktestInputs, runInputs } from "./run-inputs.ts";
import { type BacktestSummary, ratioNotGiven } from "./summary.ts";

export interface BacktestCommandOptions extends BacktestInputs {
  /** The run period by period (in --json, the text and the report). */
  breakdown?: BreakdownPeriod;
  /** Directory for the fills and the equity curve as CSV and Parquet. */
  exportDir?: string;
  /** The engine's notices, each with its market time. */
  log?: (line: string) => void;
  /** Where the HTML report goes (default: <dataDir>/backtests/<run>.html). */
  report?: string;
  /** Ticks run so far out of the total (see runBacktest). */
  onProgress?: (done: number, total: number) => void;
  /** Cancels the run (see runBacktest). */
  signal?: AbortSignal;
}

interface BacktestCommandResult {
  summary: BacktestSummary;
  reportPath: string;
  breakdown?: BreakdownRow[];
  /** Files written by --export. */
  exported?: string[];
}

/** "2026-01-31", an ISO time, or epoch milliseconds → ms. */
export function parseTime(raw: string, flag: string): number {
  const ms = /^\d+$/.test(raw)
    ? Number(raw)
    : Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(raw) ? `${raw}T00:00:00Z` : raw);
  if (!Number.isFinite(ms))
    throw new UserError(`${flag} must be a date (2026-01-31), an ISO time or epoch ms, got "${raw}"`);
  return ms;
}

function interval(raw: string): CandleInterval {
  if (!(CANDLE_INTERVALS as readonly string[]).includes(raw))
    throw new UserError(`--interval must be one of ${CANDLE_INTERVALS.join(", ")}, got "${raw}"`);
  return raw as CandleInterval;
}

/** The inlined lightweight-charts build (the report opens offline). */
export function lightweightChartsScript(): string {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve("lightweight-charts/package.json");
  return readFileSync(join(dirname(pkg), "dist", "lightweight-charts.standalone.production.js"), "utf8");
}

/** The default report file: one per strategy, instrument, interval and period. */
export function defaultReportPath(dataDir: string, s: BacktestSummary): string {
  const safe = (x: string) => x.replace(/[^A-Za-z0-9._-]/g, "_");
  const day = (iso: string) => iso.replace(/[:]/g, "").replace(/\.000Z$/, "Z");
  return join(
    dataDir,
    "backtests",
    `${safe(s.strategy)}_${safe(s.instrument)}_${s.interval}_${day(s.from)}_${day(s.to)}.html`,
  );
}

/** Checks the inputs (one readable line for each mistake) and reads the period's history. */
export async function loadInputs(o: BacktestInputs) {
  const fromMs = parseTime(o.from, "--from");
  const toMs = parseTime(o.to, "--to");
  if (fromMs >= toMs) throw new UserError(`--from (${o.from}) must be before --to (${o.to})`);
  let instrument: string;
  let coin: string;
  try {
    instrument = canonicalInstrument(o.instrument);
    coin = instrumentToCoin(o.instrument);
  } catch (e) {
    throw new UserError(e instanceof Error ? e.message : String(e));
  }
  const history = await loadHistory({
    root: o.dataDir,
    network: o.network,
    coin,
    interval: interval(o.interval),
    fromMs,
    toMs,
  });
  return { instrument, fromMs, toMs, history, szDecimals: sizeDecimals(coin, history) };
}

/** `hl backtest`: read the history, run it, write the HTML report; returns the figures and the report path. */
export async function backtestCommand(o: BacktestCommandOptions): Promise<BacktestCommandResult> {
  const loaded = await loadInputs(o);
  const { summary, venue, ledger } = await runBacktest({
    ...runInputs(o, loaded),
    fromMs: loaded.fromMs,
    toMs: loaded.toMs,
    ...(o.onProgress ? { onProgress: o.onProgress } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
    ...(o.log ? { log: o.log } : {}),
  });
  const capital = Number(summary.capital_usd);
  const rows = o.breakdown ? breakdown(venue.tape, summary.trades, capital, o.breakdown) : undefined;
  const reportPath = resolve(o.report ?? defaultReportPath(o.dataDir, summary));
  mkdirSync(dirname(reportPath), { recursive: true });
  writeFileAtomic(
    reportPath,
    renderReportHtml(summary, venue.tape, lightweightChartsScript(), undefined, {
      fills: ledger.fills,
      ...(rows ? { breakdown: rows } : {}),
    }),
  );
  const exported = o.exportDir
    ? writeExports(resolve(o.exportDir), ledger.fills, venue.tape, capital)
    : undefined;
  return { summary, reportPath, ...(rows ? { breakdown: rows } : {}), ...(exported ? { exported } : {}) };
}

/** `hl backtest --lookahead-check`: the run, then each of up to `signals` order batches re-run on data cut at its time. */
export async function lookaheadCommand(o: BacktestInputs & { signals?: number }): Promise<LookaheadResult> {
  const loaded = await loadInputs(o);
  return lookaheadCheck(
    { ...runInputs(o, loaded), fromMs: loaded.fromMs, toMs: loaded.toMs },
    INTERVAL_MS[loaded.history.interval],
    o.signals,
  );
}

/** The human-readable summary (`--json` prints the summary object instead). */
export function formatSummary(s: BacktestSummary, reportPath: string): string[] {
  const n = (x: number | null, unit = "") => (x === null ? "—" : `${x}${unit}`);
  const closed = s.trades.filter((t) => t.closed_ms !== null).length;
  const asked =
    s.requested_from === s.from && s.requested_to === s.to
      ? ""
      : ` (asked ${s.requested_from} → ${s.requested_to})`;
  const ratio = (x: number | null) => (x === null ? ratioNotGiven(s.daily_returns) : String(x));
  return [
    `Backtest: ${s.strategy} on ${s.instrument}, ${s.from} → ${s.to} (${s.candles} × ${s.interval})${asked}`,
    `Params: ${Object.entries(s.params)
      .map(([k, v]) => `${k}=${v}`)
      .join(" ")}`,
    `Costs: fee tier ${s.fee_tier} (maker ${s.maker_fee_rate}, taker ${s.taker_fee_rate}), slippage ${s.slippage_bps} bps, latency ${s.latency_ms} ms, at most ${s.participation_pct}% of a candle's volume`,
    `PnL: ${s.pnl_usd} USD (${s.return_pct}% of ${s.capital_usd}); buy and hold ${n(s.buy_and_hold_return_pct, "%")}; CAGR ${s.cagr_pct === null ? "n/a (under 30 days)" : `${s.cagr_pct}%`}, Calmar ${n(s.calmar)}`,
    `Sharpe: ${ratio(s.sharpe)}  Sortino: ${ratio(s.sortino)}`,
    `Max drawdown: ${s.max_drawdown_usd} USD (${s.max_drawdown_pct}%), ${s.max_drawdown_duration_s} s`,
    `Trades: ${closed} closed, win rate ${s.win_rate === null ? "—" : `${(s.win_rate * 100).toFixed(2)}%`}, profit factor ${n(s.profit_factor)}, expectancy ${s.expectancy_usd ?? "—"} USD, average ${s.avg_trade_duration_s === null ? "—" : `${s.avg_trade_duration_s} s`}, exposure ${s.exposure_pct}%`,
    `Fees: ${s.fees_usd} USD  Funding: ${s.funding_usd} USD  Fills: ${s.fills}  Orders: ${s.orders_placed} placed, ${s.orders_rejected} refused`,
    `Stop: ${s.stop_reason}${s.risk.halt_reason ? ` (${s.risk.halt_reason})` : ""}`,
    ...s.warnings.map((w) => `Warning: ${w}`),
    `Report: ${reportPath}`,
  ];
}
