import { z } from "zod";
import type { Network } from "../../../config/defaults.ts";
import { type Dec, dec } from "../../../core/decimal.ts";
import { HlClient, instrumentToCoin } from "../../../exchange/index.ts";
import { type OutputStream, parseJsonOutput, runCli } from "../cli-job.ts";
import {
  checkInstrument,
  checkOrderSize,
  checkStrategy,
  checkTicks,
  chooseNetwork,
  loadPolicy,
  reserveNotional,
  settleNotional,
} from "../safety.ts";
import { defineTool, TextAndData, type ToolContext, ToolError, type ToolProgress } from "../tool.ts";
import { engineSummary, wolfSummary } from "./summaries.ts";

/** A `hl run` tick line on stderr: `[HH:MM:SS] T<n> <coin> mid=…`. */
const ENGINE_TICK = /^\[\d{2}:\d{2}:\d{2}\] T\d+ /;

/** Progress of `hl run`: one report per tick line the engine logs (counted, so it only increases). */
export function engineTickProgress(total: number | undefined) {
  let ticks = 0;
  return (line: string, stream: OutputStream): ToolProgress | undefined => {
    // `hl run` prints its tick lines on stdout (so `hl run | head` ends at the next tick).
    if (stream !== "stdout" || !ENGINE_TICK.test(line)) return undefined;
    ticks += 1;
    return { progress: ticks, ...(total ? { total } : {}), message: line.trim().slice(0, 200) };
  };
}

/** Progress of `hl wolf run --json`: each tick prints the state as one JSON line on stdout. */
export function wolfTickProgress(total: number | undefined) {
  let ticks = 0;
  return (line: string, stream: OutputStream): ToolProgress | undefined => {
    if (stream !== "stdout" || !line.startsWith("{")) return undefined;
    let st: {
      tick_count?: unknown;
      slots?: { status?: string }[];
      total_trades?: unknown;
      daily_pnl?: unknown;
    };
    try {
      st = JSON.parse(line);
    } catch {
      return undefined;
    }
    if (typeof st.tick_count !== "number") return undefined;
    ticks += 1;
    const slots = Array.isArray(st.slots) ? st.slots : [];
    const active = slots.filter((s) => s.status !== undefined && s.status !== "empty").length;
    return {
      progress: ticks,
      ...(total ? { total } : {}),
      message: `tick ${st.tick_count}: ${active}/${slots.length} slots active, ${String(st.total_trades)} trades, daily PnL ${String(st.daily_pnl)}`,
    };
  };
}

/** Every child gets the server's data dir as DATA_DIR (commands default their paths from it). */
function cliEnv(ctx: ToolContext): NodeJS.ProcessEnv {
  return { ...ctx.env, DATA_DIR: ctx.dataDir };
}

/** A stopped (cancelled or timed-out) loop still reports what it saved. */
async function withSummary<T>(job: Promise<T>, summary: () => unknown): Promise<T> {
  try {
    return await job;
  } catch (err) {
    if (err instanceof ToolError && err.details?.stopped) {
      throw new ToolError(err.message, { ...err.details, summary: summary() });
    }
    throw err;
  }
}

const plain = (n: number) => dec(n).toFixed();

/**
 * A trading loop (`hl run`, `hl wolf run`) as a supervised job: progress per tick, the run's summary
 * with the result — and with the error when it was stopped. chooseNetwork has already demanded
 * `confirm: true` for mainnet, which is what the CLI's --yes stands for.
 */
async function runTradingJob(
  ctx: ToolContext,
  chosen: { network: Network; note?: string },
  job: {
    cli: string[];
    timeoutMs: number | undefined;
    onLine: (line: string, stream: OutputStream) => ToolProgress | undefined;
    summary: () => unknown;
    tail: (out: { stdout: string; stderr: string }) => string[];
  },
): Promise<Record<string, unknown>> {
  const args = chosen.network === "mainnet" ? [...job.cli, "--yes"] : job.cli;
  const out = await withSummary(
    runCli({
      args,
      env: cliEnv(ctx),
      signal: ctx.signal,
      ...(job.timeoutMs !== undefined ? { timeoutMs: job.timeoutMs } : {}),
      onLine: job.onLine,
      progress: ctx.progress,
    }),
    job.summary,
  );
  return {
    network: chosen.network,
    ...(chosen.note ? { note: chosen.note } : {}),
    summary: job.summary(),
    output_tail: job.tail(out),
  };
}

/** `run_strategy`'s hard limit: max(60, max_ticks·tick + 30) s; none without max_ticks (runs until cancelled). */
export function strategyTimeoutMs(maxTicks: number | null, tick: number): number | undefined {
  return maxTicks === null ? undefined : Math.max(60, maxTicks * tick + 30) * 1000;
}

/**
 * `wolf_run`'s hard limit: the contract's max(120, max_ticks·60 + 30) s (60 = WOLF's default tick; a
 * shorter tick keeps that budget, a longer one gets more); none without max_ticks.
 */
export function wolfTimeoutMs(maxTicks: number | null, tick?: number): number | undefined {
  return maxTicks === null ? undefined : Math.max(120, maxTicks * Math.max(60, tick ?? 60) + 30) * 1000;
}

const mainnetArgs = {
  mainnet: z
    .boolean()
    .default(false)
    .describe("Use Hyperliquid mainnet (real money). Needs confirm: true as well."),
  confirm: z
    .boolean()
    .default(false)
    .describe("Explicit confirmation for mainnet actions, after asking the user."),
};

export const account = defineTool({
  name: "account",
  title: "Account state",
  group: "action",
  description:
    "Hyperliquid account state: account value, withdrawable, margin used and open positions on every dex. " +
    "Reads the configured wallet on testnet (or the paper network when no key is configured; mainnet: true for mainnet).",
  input: {
    mainnet: z.boolean().default(false).describe("Read the mainnet account instead of testnet/paper"),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async run(args, ctx) {
    const { network, note } = chooseNetwork({ mainnet: args.mainnet, confirm: true }, ctx.env, false);
    const read = (json: boolean) =>
      runCli({
        args: ["account", ...(json ? ["--json"] : []), "--network", network],
        env: cliEnv(ctx),
        signal: ctx.signal,
        timeoutMs: 30_000,
      });
    const [asJson, asText] = await Promise.all([read(true), read(false)]);
    const data = { network, ...(note ? { note } : {}), account: parseJsonOutput(asJson.stdout) };
    return new TextAndData(`${note ? `${note}\n` : ""}${asText.stdout.trimEnd()}`, data);
  },
});

export const status = defineTool({
  name: "status",
  title: "Strategy status",
  group: "action",
  description:
    "Current state of the single-strategy engine from its state store: position, unrealized and realized PnL, " +
    "orders and fills, risk state. Use wolf_status for the WOLF orchestrator.",
  input: {},
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(_args, ctx) {
    const read = (json: boolean) =>
      runCli({
        args: ["status", ...(json ? ["--json"] : [])],
        env: cliEnv(ctx),
        signal: ctx.signal,
        timeoutMs: 30_000,
      });
    const [asJson, asText] = await Promise.all([read(true), read(false)]);
    return new TextAndData(
      asText.stdout.trimEnd(),
      parseJsonOutput(asJson.stdout) as Record<string, unknown>,
    );
  },
});

export const trade = defineTool({
  name: "trade",
  title: "Place a single order",
  group: "action",
  description:
    "Place ONE manual immediate-or-cancel order (no prompt) and return the fill or the exchange's refusal. " +
    "Without a configured key it trades on the paper network and says so. Mainnet needs mainnet: true and confirm: true.",
  input: {
    instrument: z.string().min(1).describe("Instrument, e.g. ETH-PERP, BTC-PERP, VXX-USDYP, BTCSWP-USDYP"),
    side: z.enum(["buy", "sell"]).describe('Order side: "buy" or "sell"'),
    size: z.number().positive().describe("Order size in contracts (base units)"),
    price: z.number().positive().optional().describe("Limit price; default: marketable price from the book"),
    mock: z.boolean().default(false).describe("Trade on the paper network (sim world)"),
    ...mainnetArgs,
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  async run(args, ctx) {
    const policy = loadPolicy(ctx.env);
    checkInstrument(policy, args.instrument);
    checkOrderSize(policy, args.size);
    const { network, note } = chooseNetwork(args, ctx.env, true);
    const reservation =
      policy.daily_notional_usd === undefined
        ? undefined
        : reserveNotional(
            policy,
            ctx.dataDir,
            dec(args.price ?? (await referencePrice(args.instrument, network, ctx))).mul(args.size),
          );
    const cli = [
      "trade",
      args.instrument,
      args.side,
      plain(args.size),
      "--yes",
      "--json",
      "--network",
      network,
    ];
    if (args.price !== undefined) cli.push("--price", plain(args.price));
    let result: unknown;
    try {
      const out = await runCli({ args: cli, env: cliEnv(ctx), signal: ctx.signal, timeoutMs: 30_000 });
      result = parseJsonOutput(out.stdout);
    } catch (err) {
      // Only a refusal the exchange answered gives the budget back; a lost answer may have traded.
      if (reservation && exchangeRefused(err)) settleNotional(ctx.dataDir, reservation, dec(0));
      throw err;
    }
    if (reservation) settleNotional(ctx.dataDir, reservation, tradedNotional(result, reservation.reserved));
    return { network, ...(note ? { note } : {}), result };
  },
});

/** Did the failed `hl trade` job print the exchange's own refusal (so nothing traded)? */
function exchangeRefused(err: unknown): boolean {
  if (!(err instanceof ToolError) || err.details?.stopped) return false;
  try {
    const printed = parseJsonOutput(String(err.details?.stdout ?? "")) as { status?: unknown };
    return printed.status === "error";
  } catch {
    return false;
  }
}

/** What an order result committed: the filled notional; anything else (a resting order) keeps it all. */
function tradedNotional(result: unknown, reserved: Dec): Dec {
  const r = result as { status?: unknown; avgPx?: unknown; totalSz?: unknown };
  if (r.status === "filled" && typeof r.avgPx === "string" && typeof r.totalSz === "string")
    return dec(r.avgPx).mul(r.totalSz);
  return reserved;
}

/** Mid price for the notional budget, read without any key (public info only). */
async function referencePrice(instrument: string, network: Network, ctx: ToolContext): Promise<string> {
  const client = await HlClient.create({ network, env: ctx.env, paperWallet: false });
  try {
    const coin = instrumentToCoin(instrument);
    const mid = (await client.allMidsMerged())[coin];
    if (!mid) throw new ToolError(`no price for ${instrument} on ${network}`);
    return mid;
  } finally {
    await client.close();
  }
}

export const runStrategy = defineTool({
  name: "run_strategy",
  title: "Run a strategy",
  group: "action",
  description:
    "Start autonomous trading with one strategy on one instrument as a supervised background process. " +
    "Reports progress each tick; returns a summary when max_ticks is reached; without max_ticks it runs until the " +
    "call is cancelled (the loop then cancels its orders and saves its state). mock: paper network; dry_run: real " +
    "market data, orders simulated locally and never sent.",
  input: {
    strategy: z
      .string()
      .min(1)
      .describe("Strategy id, see the strategies tool (e.g. simple_mm, avellaneda_mm)"),
    instrument: z.string().default("ETH-PERP").describe("Instrument, e.g. ETH-PERP"),
    tick: z.number().positive().default(10).describe("Seconds between ticks (default 10)"),
    max_ticks: z
      .number()
      .int()
      .positive()
      .nullable()
      .default(null)
      .describe("Stop after N ticks (null = until cancelled)"),
    mock: z.boolean().default(false).describe("Paper network (sim world)"),
    dry_run: z.boolean().default(false).describe("Real market data, orders never sent"),
    ...mainnetArgs,
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  async run(args, ctx) {
    const policy = loadPolicy(ctx.env);
    checkStrategy(policy, args.strategy);
    checkInstrument(policy, args.instrument);
    checkTicks(policy, args.max_ticks);
    const chosen = chooseNetwork(args, ctx.env, !args.dry_run);
    // --mock (rather than --network paper) so the run is recorded as a mock run.
    const where = args.mock ? ["--mock"] : ["--network", chosen.network];
    const cli = ["run", args.strategy, "-i", args.instrument, "--tick", plain(args.tick), ...where];
    if (args.max_ticks !== null) cli.push("--max-ticks", String(args.max_ticks));
    if (args.dry_run) cli.push("--dry-run");
    return runTradingJob(ctx, chosen, {
      cli,
      timeoutMs: strategyTimeoutMs(args.max_ticks, args.tick),
      onLine: engineTickProgress(args.max_ticks ?? undefined),
      summary: () => engineSummary(ctx.dataDir),
      tail: (out) => out.stdout.trim().split("\n").slice(-6),
    });
  },
});

export const scannerRun = defineTool({
  name: "scanner_run",
  title: "Run the opportunity scanner",
  group: "action",
  description:
    "Screen every Hyperliquid perp once: scored opportunities with market structure, technicals and funding " +
    "analysis (funding annualised from hourly rates). mock: scan the paper network (sim world).",
  input: { mock: z.boolean().default(false).describe("Scan the paper network (sim world)") },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  async run(args, ctx) {
    const { network, note } = chooseNetwork({ mock: args.mock }, ctx.env, false);
    const out = await runCli({
      args: ["scanner", "once", "--json", "--network", network, "--data-dir", ctx.dataDir],
      env: cliEnv(ctx),
      signal: ctx.signal,
      timeoutMs: 60_000,
    });
    return { network, ...(note ? { note } : {}), scan: parseJsonOutput(out.stdout) };
  },
});

export const wolfStatus = defineTool({
  name: "wolf_status",
  title: "WOLF status",
  group: "action",
  description:
    "WOLF orchestrator status: slots with side, size, entry, ROE, DSL phase and the stop resting on the exchange (backstop), daily and total PnL, entries stopped.",
  input: {},
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(_args, ctx) {
    const out = await runCli({
      args: ["wolf", "status", "--json", "--data-dir", ctx.dataDir],
      env: cliEnv(ctx),
      signal: ctx.signal,
      timeoutMs: 30_000,
    });
    return parseJsonOutput(out.stdout);
  },
});

export const wolfRun = defineTool({
  name: "wolf_run",
  title: "Run WOLF",
  group: "action",
  description:
    "Start the WOLF multi-slot orchestrator (scanner/movers entries, DSL trailing-stop exits) as a supervised " +
    "background process; progress each tick; summary on completion. Timeout max(120, max_ticks*60+30) s; " +
    "without max_ticks it runs until the call is cancelled. mock: paper network.",
  input: {
    preset: z.enum(["default", "conservative", "aggressive"]).default("default").describe("Preset"),
    mock: z.boolean().default(false).describe("Paper network (sim world)"),
    max_ticks: z
      .number()
      .int()
      .positive()
      .nullable()
      .default(null)
      .describe("Stop after N ticks (null = until cancelled)"),
    tick: z.number().positive().optional().describe("Seconds between ticks (default 60)"),
    ...mainnetArgs,
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  async run(args, ctx) {
    const policy = loadPolicy(ctx.env);
    checkTicks(policy, args.max_ticks);
    const chosen = chooseNetwork(args, ctx.env, true);
    // --json: one state line per tick on stdout, which is what progress is read from.
    const cli = ["wolf", "run", "--json", "--preset", args.preset, "--network", chosen.network];
    cli.push("--data-dir", ctx.dataDir);
    if (args.max_ticks !== null) cli.push("--max-ticks", String(args.max_ticks));
    if (args.tick !== undefined) cli.push("--tick", plain(args.tick));
    return runTradingJob(ctx, chosen, {
      cli,
      timeoutMs: wolfTimeoutMs(args.max_ticks, args.tick),
      onLine: wolfTickProgress(args.max_ticks ?? undefined),
      summary: () => wolfSummary(ctx.dataDir),
      tail: (out) => out.stderr.trim().split("\n").slice(-3),
    });
  },
});

export const howlRun = defineTool({
  name: "howl_run",
  title: "HOWL performance review",
  group: "action",
  description:
    "Review closed trades (WOLF and strategy runs): win rate, profit factor, fee drag ratio (FDR), direction and " +
    "per-instrument analysis, holding times and parameter recommendations; writes a markdown report.",
  input: {
    since: z
      .string()
      .regex(/^\d{4}-\d{2}-\d{2}$/, "since must be a UTC date YYYY-MM-DD")
      .nullable()
      .default(null)
      .describe("Only trades from this UTC date (YYYY-MM-DD); null = all"),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    const cli = ["howl", "run", "--json"];
    if (args.since) cli.push("--since", args.since);
    const out = await runCli({ args: cli, env: cliEnv(ctx), signal: ctx.signal, timeoutMs: 60_000 });
    return parseJsonOutput(out.stdout);
  },
});
