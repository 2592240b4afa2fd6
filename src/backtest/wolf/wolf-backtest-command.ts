import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { UserError } from "../../core/errors.ts";
import { CANDLE_INTERVALS, type CandleInterval } from "../../market/types.ts";
import { writeFileAtomic } from "../../store/atomic.ts";
import type { WolfConfig } from "../../wolf/config.ts";
import { lightweightChartsScript, parseTime } from "../backtest-command.ts";
import { renderReportHtml } from "../report-html.ts";
import { ratioNotGiven } from "../summary.ts";
import { runWolfBacktest } from "./run-wolf-backtest.ts";
import { loadUniverse } from "./universe.ts";
import type { WolfBacktestSummary } from "./wolf-summary.ts";

interface WolfBacktestCommandOptions {
  preset: string;
  config: WolfConfig;
  from: string;
  to: string;
  /** Coins to replay (default: every coin held for the interval on the network). */
  coins?: readonly string[];
  interval: string;
  feeTier: number;
  latencyMs: number;
  slippageBps: number;
  /** Our fills in a candle are at most this share of its volume, 0–1 (default 0.1). */
  participation?: number;
  network: string;
  dataDir: string;
  /** Where the HTML report goes (default: <dataDir>/backtests/wolf_<preset>_<interval>_<from>_<to>.html). */
  report?: string;
  log?: (line: string) => void;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

interface WolfBacktestCommandResult {
  summary: WolfBacktestSummary;
  reportPath: string;
}

function interval(raw: string): CandleInterval {
  if (!(CANDLE_INTERVALS as readonly string[]).includes(raw))
    throw new UserError(`--interval must be one of ${CANDLE_INTERVALS.join(", ")}, got "${raw}"`);
  return raw as CandleInterval;
}

/** The default report file: one per preset, interval and period. */
function defaultWolfReportPath(dataDir: string, s: WolfBacktestSummary): string {
  const safe = (x: string) => x.replace(/[^A-Za-z0-9._-]/g, "_");
  const day = (iso: string) => iso.replace(/[:]/g, "").replace(/\.000Z$/, "Z");
  return join(dataDir, "backtests", `wolf_${safe(s.preset)}_${s.interval}_${day(s.from)}_${day(s.to)}.html`);
}

/** `hl wolf backtest`: read the recorded universe, run WOLF over it, write the HTML report. */
export async function wolfBacktestCommand(o: WolfBacktestCommandOptions): Promise<WolfBacktestCommandResult> {
  const fromMs = parseTime(o.from, "--from");
  const toMs = parseTime(o.to, "--to");
  if (fromMs >= toMs) throw new UserError(`--from (${o.from}) must be before --to (${o.to})`);
  const universe = await loadUniverse({
    root: o.dataDir,
    network: o.network,
    interval: interval(o.interval),
    fromMs,
    toMs,
    ...(o.coins ? { coins: o.coins } : {}),
  });
  const { summary, tape, chartCoin } = await runWolfBacktest({
    preset: o.preset,
    config: o.config,
    universe,
    fromMs,
    toMs,
    feeTier: o.feeTier,
    latencyMs: o.latencyMs,
    slippageBps: o.slippageBps,
    ...(o.participation !== undefined ? { participation: o.participation } : {}),
    ...(o.log ? { log: o.log } : {}),
    ...(o.onProgress ? { onProgress: o.onProgress } : {}),
    ...(o.signal ? { signal: o.signal } : {}),
  });
  const reportPath = resolve(o.report ?? defaultWolfReportPath(o.dataDir, summary));
  mkdirSync(dirname(reportPath), { recursive: true });
  writeFileAtomic(
    reportPath,
    renderReportHtml(summary, tape, lightweightChartsScript(), {
      chartCoin,
      title: `WOLF (${summary.preset})`,
    }),
  );
  return { summary, reportPath };
}

/** The human-readable summary (`--json` prints the summary object instead). */
export function formatWolfSummary(s: WolfBacktestSummary, reportPath: string): string[] {
  const n = (x: number | null) => (x === null ? "—" : String(x));
  const counts = (r: Record<string, number>) =>
    Object.entries(r)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ") || "none";
  const closed = s.trades.filter((t) => t.closed_ms !== null).length;
  return [
    `WOLF backtest (${s.preset}) on ${s.coins.join(", ")}, ${s.from} → ${s.to} (${s.candles} × ${s.interval}, ${s.ticks} ticks)`,
    `Config: ${Object.entries(s.params)
      .map(([k, v]) => `${k}=${v}`)
      .join(" ")}`,
    `Costs: fee tier ${s.fee_tier} (taker ${s.taker_fee_rate}), slippage ${s.slippage_bps} bps, latency ${s.latency_ms} ms`,
    `PnL: ${s.pnl_usd} USD (${s.return_pct}% of ${s.capital_usd})`,
    `Sharpe: ${s.sharpe === null ? ratioNotGiven(s.daily_returns) : s.sharpe}  Sortino: ${s.sortino === null ? ratioNotGiven(s.daily_returns) : s.sortino}`,
    `Max drawdown: ${s.max_drawdown_usd} USD (${s.max_drawdown_pct}%), ${s.max_drawdown_duration_s} s`,
    `Trades: ${closed} closed, win rate ${s.win_rate === null ? "—" : `${(s.win_rate * 100).toFixed(2)}%`}, profit factor ${n(s.profit_factor)}, exposure ${s.exposure_pct}%`,
    `Entries: ${counts(s.entries_by_source)}`,
    `Exits: ${counts(s.exits_by_reason)}`,
    `Fees: ${s.fees_usd} USD  Funding: ${s.funding_usd} USD  Fills: ${s.fills}  Orders: ${s.orders_placed} sent, ${s.orders_rejected} unfilled`,
    ...s.warnings.map((w) => `Warning: ${w}`),
    `Report: ${reportPath}`,
  ];
}
