import type { Command } from "commander";
import { backtestCommand, formatSummary, lookaheadCommand } from "../backtest/backtest-command.ts";
import { formatBreakdown, parseBreakdown } from "../backtest/breakdown.ts";
import { DEFAULT_PARTICIPATION } from "../backtest/candle-fill-model.ts";
import { formatLookahead } from "../backtest/lookahead-check.ts";
import { ProgressBar } from "../backtest/progress-bar.ts";
import { DEFAULT_SLIPPAGE_BPS } from "../backtest/run-backtest.ts";
import { formatSweep, sweepCommand } from "../backtest/sweep/sweep-command.ts";
import { dataDir, resolveNetwork } from "../config/env.ts";
import { UserError } from "../core/errors.ts";
import { registerBacktestWorker } from "./backtest-worker.ts";
import { parsePairs } from "./run.ts";

interface BacktestFlags {
  instrument: string;
  from?: string;
  to?: string;
  param: string[];
  risk: string[];
  feeTier: string;
  latencyMs: string;
  slippageBps: string;
  participationPct: string;
  interval: string;
  network?: string;
  dataDir?: string;
  report?: string;
  json?: boolean;
  sweep: string[];
  metric: string;
  workers?: string;
  walkForward?: boolean;
  folds: string;
  strict?: boolean;
  makerFee?: string;
  takerFee?: string;
  breakdown?: string;
  export?: string;
  lookaheadCheck?: string | boolean;
  queue?: string;
}

const collect = (v: string, acc: string[]) => [...acc, v];

function number(raw: string, flag: string): number {
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(n)) throw new UserError(`${flag} must be a number, got "${raw}"`);
  return n;
}

/** `hl backtest STRATEGY -i INSTRUMENT --from --to`: the engine on recorded history. */
export function register(program: Command): void {
  const backtest = program.command("backtest");
  registerBacktestWorker(backtest);
  backtest
    .description(
      "Run a strategy through the engine on recorded candles and report PnL, Sharpe, drawdown, trades",
    )
    .argument("<strategy>", "strategy id (see `hl strategies`)")
    .option("-i, --instrument <name>", "instrument, e.g. ETH-PERP", "ETH-PERP")
    .option("--from <time>", "start: 2026-01-31, an ISO time or epoch ms (UTC)")
    .option("--to <time>", "end (exclusive), same forms")
    .option("-p, --param <name=value>", "strategy param override (repeatable)", collect, [])
    .option(
      "--risk <name=value>",
      "risk limit override (repeatable); capital_usd is the starting equity",
      collect,
      [],
    )
    .option("--fee-tier <n>", "Hyperliquid perp fee tier 0–6", "0")
    .option("--maker-fee <rate>", "maker fee rate of your own (fraction of notional; negative: a rebate)")
    .option("--taker-fee <rate>", "taker fee rate of your own (fraction of notional)")
    .option("--latency-ms <ms>", "order and cancel latency, market time", "0")
    .option(
      "--slippage-bps <bps>",
      "taker fills this much worse than the touch they meet (beyond its limit an order does not take)",
      String(DEFAULT_SLIPPAGE_BPS),
    )
    .option(
      "--participation-pct <pct>",
      "our fills in a candle are at most this share of its volume",
      String(DEFAULT_PARTICIPATION * 100),
    )
    .option("--interval <1m|5m|1h>", "candle interval to replay", "1m")
    .option(
      "--network <network>",
      "whose recorded data: mainnet | testnet | paper (default: HL_NETWORK, else paper)",
    )
    .option(
      "--data-dir <dir>",
      "data directory root, market data under <dir>/market (default: DATA_DIR, else ./data)",
    )
    .option("--report <file>", "HTML report file (default: <data-dir>/backtests/<run>.html)")
    .option("--json", "print the figures as JSON")
    .option(
      "--sweep <name=a..b:step>",
      "sweep a param over a range (or name=v1,v2); repeatable: the grid of all combinations, ranked",
      collect,
      [],
    )
    .option("--metric <figure>", "what a sweep ranks by (sharpe, sortino, pnl_usd, return_pct, …)", "sharpe")
    .option("--workers <n>", "worker threads of a sweep (default: cores − 1; 0 runs in this thread)")
    .option("--walk-forward", "with --sweep: pick the best params in-sample, report them out of sample")
    .option("--folds <n>", "walk-forward folds", "3")
    .option("--strict", "a gap in the data (candles, funding, a recording) is an error, not a warning")
    .option("--breakdown <day|week|month>", "the run period by period (text, --json and the report)")
    .option("--export <dir>", "write the fills and the equity curve to <dir> as CSV and Parquet")
    .option(
      "--lookahead-check [signals]",
      "re-run up to this many signals (default 20) on data cut at their time and compare; exit 1 when one differs",
    )
    .option(
      "--queue <url>",
      "with --sweep: share the runs through this Postgres job queue with `hl backtest worker` processes",
    )
    .action(async (strategy: string, f: BacktestFlags) => {
      if (!f.from || !f.to)
        throw new UserError("--from and --to are required (e.g. --from 2026-01-01 --to 2026-01-31)");
      if (f.queue !== undefined && f.sweep.length === 0)
        throw new UserError("--queue shares a sweep: give at least one --sweep name=a..b:step");
      if (f.walkForward && f.sweep.length === 0)
        throw new UserError("--walk-forward needs at least one --sweep name=a..b:step to optimise");
      const inputs = {
        strategy,
        instrument: f.instrument,
        from: f.from,
        to: f.to,
        params: parsePairs(f.param, "--param"),
        risk: parsePairs(f.risk, "--risk"),
        feeTier: number(f.feeTier, "--fee-tier"),
        ...(f.makerFee !== undefined ? { makerFee: f.makerFee } : {}),
        ...(f.takerFee !== undefined ? { takerFee: f.takerFee } : {}),
        latencyMs: number(f.latencyMs, "--latency-ms"),
        slippageBps: number(f.slippageBps, "--slippage-bps"),
        participation: number(f.participationPct, "--participation-pct") / 100,
        ...(f.strict ? { strict: true } : {}),
        interval: f.interval,
        network: resolveNetwork(f.network),
        dataDir: f.dataDir ?? dataDir(),
      };
      if (f.lookaheadCheck !== undefined && f.lookaheadCheck !== false) {
        const r = await lookaheadCommand({
          ...inputs,
          ...(typeof f.lookaheadCheck === "string"
            ? { signals: number(f.lookaheadCheck, "--lookahead-check") }
            : {}),
        });
        process.stdout.write(`${(f.json ? [JSON.stringify(r)] : formatLookahead(r)).join("\n")}\n`);
        if (r.biased.length > 0) process.exitCode = 1;
        return;
      }
      if (f.sweep.length > 0) {
        const r = await sweepCommand({
          ...inputs,
          sweeps: f.sweep,
          metric: f.metric,
          ...(f.workers !== undefined ? { workers: number(f.workers, "--workers") } : {}),
          ...(f.walkForward ? { folds: number(f.folds, "--folds") } : {}),
          ...(f.queue !== undefined ? { queue: f.queue } : {}),
        });
        process.stdout.write(`${(f.json ? [JSON.stringify(r)] : formatSweep(r)).join("\n")}\n`);
        return;
      }
      // Notices on stderr as they come, the bar (on a terminal, for runs over a second) out of their way.
      const bar = process.stderr.isTTY ? new ProgressBar(process.stderr, "candles") : undefined;
      let r: Awaited<ReturnType<typeof backtestCommand>>;
      try {
        r = await backtestCommand({
          ...inputs,
          ...(f.report ? { report: f.report } : {}),
          ...(f.breakdown ? { breakdown: parseBreakdown(f.breakdown) } : {}),
          ...(f.export ? { exportDir: f.export } : {}),
          ...(bar ? { onProgress: (done: number, total: number) => bar.update(done, total) } : {}),
          log: (line) => {
            bar?.clear();
            process.stderr.write(`notice: ${line}\n`);
          },
        });
      } finally {
        bar?.done();
      }
      const out = f.json
        ? [
            JSON.stringify({
              ...r.summary,
              report: r.reportPath,
              ...(r.breakdown ? { breakdown: r.breakdown } : {}),
              ...(r.exported ? { exported: r.exported } : {}),
            }),
          ]
        : [
            ...formatSummary(r.summary, r.reportPath),
            ...(r.breakdown ? formatBreakdown(r.breakdown) : []),
            ...(r.exported ? [`Exported: ${r.exported.join(", ")}`] : []),
          ];
      process.stdout.write(`${out.join("\n")}\n`);
    });
}
