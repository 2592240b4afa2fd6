import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { dataDir, simPort } from "../config/env.ts";
import { UserError } from "../core/errors.ts";
import { runParity } from "../engine/parity.ts";
import { coinList, instant, nonNegativeInt, positiveInt } from "../market/cli-args.ts";
import { exportSimHistory } from "../market/sim-export.ts";
import { parseTime } from "../services/feeds/config.ts";
import { tuneSimServerGc } from "../sim/server/gc-tuning.ts";
import { WS_LIMITS } from "../sim/server/ws-limits.ts";
import { startSimWorld } from "../sim/world.ts";
import { acquireRunLock } from "../store/run-lock.ts";

interface ServeOptions {
  port?: string;
  host: string;
  seed?: string;
  speed?: string;
  startingBalance?: string;
  dataDir?: string;
  replay?: string;
  from?: string;
  to?: string;
  replayNetwork: string;
  ipWeightLimit?: string;
  wsLimits?: string;
}

function intOption(name: string, raw: string, min: number, max: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UserError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return n;
}

interface ExportCliOptions {
  days: string;
  coins?: string;
  seed: string;
  to?: string;
  dataDir?: string;
  json?: boolean;
}

interface ParityCliOptions {
  seed: string;
  ticks: string;
  referred?: boolean;
}

/** `hl sim serve`: the simulated Hyperliquid (exchange API, WebSocket, admin, rates, builder fill files). */
export function register(program: Command): void {
  const sim = program.command("sim").description("The simulated Hyperliquid (paper network)");

  sim
    .command("serve")
    .description("Serve the sim world: /info, /exchange, /ws, /sim/*, /yields/pools, builder fill files")
    .option("--port <port>", "port (default SIM_PORT, else 8900)")
    .option("--host <host>", "interface to bind", "127.0.0.1")
    .option("--seed <n>", "market model seed: the same seed gives the same market (default 1)")
    .option("--speed <x>", "sim clock multiplier (default 1)")
    .option("--starting-balance <usdc>", "USDC credited to each new address (default 10000)")
    .option(
      "--data-dir <dir>",
      "keep the world's state in <dir>/sim and restore it on start (default DATA_DIR when set, else none)",
    )
    .option(
      "--replay <coins>",
      "replay these coins' recorded market (comma-separated) from the market-data store instead of inventing prices; needs --from and --to",
    )
    .option("--from <time>", "replay start (ISO time or epoch ms)")
    .option("--to <time>", "replay end (ISO time or epoch ms)")
    .option("--replay-network <network>", "network of the recording in the store", "mainnet")
    .option(
      "--ip-weight-limit <weight>",
      "Hyperliquid's per-IP limit: request weight per minute per client source address, or off (default 1200, as on the exchange; off with HL_SIM_LIMITS=off)",
    )
    .option(
      "--ws-limits <on|off>",
      "Hyperliquid's per-IP WebSocket limits: 10 connections, 30 new a minute, 1000 subscriptions, 10 users, 2000 messages a minute, 100 posts in flight (default on, as on the exchange; off with HL_SIM_LIMITS=off)",
    )
    .action(async (opts: ServeOptions) => {
      const port = opts.port === undefined ? simPort() : intOption("--port", opts.port, 0, 65535);
      const seed = opts.seed === undefined ? 1 : intOption("--seed", opts.seed, 0, 2 ** 32 - 1);
      const speed = opts.speed === undefined ? 1 : Number(opts.speed);
      if (!(speed > 0 && speed <= 10_000))
        throw new UserError(`--speed must be a number above 0 and at most 10000, got "${opts.speed}"`);
      const ipWeightLimit =
        opts.ipWeightLimit === undefined
          ? undefined
          : opts.ipWeightLimit === "off"
            ? false
            : intOption("--ip-weight-limit", opts.ipWeightLimit, 1, 100_000_000);
      if (opts.wsLimits !== undefined && opts.wsLimits !== "on" && opts.wsLimits !== "off")
        throw new UserError(`--ws-limits must be on or off, got "${opts.wsLimits}"`);
      const startingBalance = opts.startingBalance;
      if (startingBalance !== undefined && !/^\d+(\.\d{1,6})?$/.test(startingBalance)) {
        throw new UserError(
          `--starting-balance must be a USDC amount such as 10000, got "${startingBalance}"`,
        );
      }
      const dir = opts.dataDir ?? (process.env.DATA_DIR || undefined);
      const replay = replayOption(opts, dir);
      // A replaying world is the recording, nothing to save or restore.
      const stateDir = dir === undefined || replay ? undefined : join(resolve(dir), "sim");
      // One process runs a saved world at a time: one-off paper commands wait for this lock.
      const lock = stateDir === undefined ? undefined : acquireRunLock(stateDir, "world", "hl sim serve");
      tuneSimServerGc();
      let world: Awaited<ReturnType<typeof startSimWorld>>;
      try {
        world = await startSimWorld({
          port,
          host: opts.host,
          seed,
          speed,
          startingBalance,
          stateDir,
          ...(replay ? { replay } : {}),
          ipWeightLimit,
          ...(opts.wsLimits === "off" ? { wsLimits: false as const } : {}),
          ...(opts.wsLimits === "on" ? { wsLimits: WS_LIMITS } : {}),
        });
      } catch (err) {
        lock?.release();
        const code = (err as NodeJS.ErrnoException).code;
        if (code === "EADDRINUSE") {
          throw new UserError(
            `port ${port} on ${opts.host} is already in use; choose another with --port (or SIM_PORT)`,
          );
        }
        if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
          throw new UserError(`cannot listen on --host ${opts.host}`);
        if (replay && !(err instanceof UserError)) throw new UserError(`--replay: ${(err as Error).message}`);
        throw err;
      }
      const replaying = world.replay
        ? `, replaying ${world.replay.coins.join(",")} from ${new Date(world.replay.fromMs).toISOString()} to ${new Date(world.replay.endMs).toISOString()}`
        : "";
      const perIp = world.weight().limitPerMinute;
      const limit =
        (perIp === null ? ", no per-IP weight limit" : `, ${perIp} weight/min per IP`) +
        (world.wsLimits().limits === null ? ", no WebSocket limits" : "");
      process.stdout.write(
        `sim world listening on ${world.url} (seed ${world.seed}, speed ${speed}${replaying}${limit})\n`,
      );
      const signal = await new Promise<NodeJS.Signals>((resolve) => {
        process.once("SIGINT", resolve);
        process.once("SIGTERM", resolve);
      });
      // A second signal while closing means "now".
      process.once(signal, () => process.exit(130));
      await world.close();
      lock?.release();
    });

  sim
    .command("parity")
    .argument("<strategy>", "strategy id (hl strategies)")
    .description(
      "Run a strategy on an in-process sim venue and as --dry-run beside an identical one (same seed and price path); print fills, volume, fees and PnL of both (docs/paper-parity.md)",
    )
    .option("--seed <n>", "market seed", "1")
    .option("--ticks <n>", "engine ticks per run", "300")
    .option("--referred", "the trader names a referral code first (its fees are 4 % less, on both sides)")
    .action(async (strategy: string, opts: ParityCliOptions) => {
      const seed = intOption("--seed", opts.seed, 0, 2 ** 32 - 1);
      const ticks = intOption("--ticks", opts.ticks, 1, 100_000);
      const dataDir = mkdtempSync(join(tmpdir(), "hl-parity-"));
      try {
        const report = await runParity({ strategy, seed, ticks, dataDir, referred: opts.referred === true });
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });

  sim
    .command("export")
    .description(
      "Write the sim world's past (1m/5m/1h candles, funding) into the market store under network paper (docs/market-data.md)",
    )
    .option("--days <n>", "days of history", "30")
    .option("--coins <list>", "comma-separated sim markets (default: all), e.g. ETH,BTC,yex:VXX")
    .option("--seed <n>", "market seed: the same seed and --to give the same files", "1")
    .option("--to <date>", "end of the history, UTC (default: today 00:00 UTC)")
    .option("--data-dir <dir>", "data directory (default DATA_DIR, else ./data)")
    .option("--json", "print the summary as JSON")
    .action(async (opts: ExportCliOptions) => {
      const root = opts.dataDir === undefined ? dataDir() : resolve(opts.dataDir);
      const result = await exportSimHistory({
        root,
        days: positiveInt("--days", opts.days, 3660),
        seed: nonNegativeInt("--seed", opts.seed),
        ...(opts.coins === undefined ? {} : { coins: coinList("--coins", opts.coins) }),
        ...(opts.to === undefined ? {} : { endMs: instant("--to", opts.to) }),
      });
      if (opts.json) process.stdout.write(`${JSON.stringify(result)}\n`);
      else
        process.stdout.write(
          `exported ${result.coins.length} coins, ${new Date(result.fromMs).toISOString()} to ${new Date(result.endMs).toISOString()}, into ${root}/market/${result.network}\n`,
        );
    });
}

/** `--replay COINS --from --to`: which recording to play, from the market-data store under DATA_DIR. */
function replayOption(opts: ServeOptions, dir: string | undefined) {
  if (opts.replay === undefined) {
    if (opts.from !== undefined || opts.to !== undefined)
      throw new UserError("--from and --to go with --replay");
    return undefined;
  }
  const coins = opts.replay
    .split(",")
    .map((c) => c.trim())
    .filter((c) => c.length > 0);
  if (coins.length === 0) throw new UserError("--replay needs at least one coin, e.g. --replay ETH,BTC");
  if (opts.from === undefined || opts.to === undefined)
    throw new UserError("--replay needs --from and --to (ISO time or epoch ms)");
  const fromMs = parseTime("--from", opts.from);
  const toMs = parseTime("--to", opts.to);
  if (!(toMs > fromMs)) throw new UserError("--to must be after --from");
  if (dir === undefined)
    throw new UserError("--replay reads the market-data store: set DATA_DIR or --data-dir");
  return { root: resolve(dir), network: opts.replayNetwork, coins, fromMs, toMs };
}
