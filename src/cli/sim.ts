import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { simPort } from "../config/env.ts";
import { UserError } from "../core/errors.ts";
import { runParity } from "../engine/parity.ts";
import { startSimWorld } from "../sim/world.ts";
import { acquireRunLock } from "../store/run-lock.ts";

interface ServeOptions {
  port?: string;
  host: string;
  seed?: string;
  speed?: string;
  startingBalance?: string;
  dataDir?: string;
  ipWeightLimit?: string;
}

function intOption(name: string, raw: string, min: number, max: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UserError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return n;
}

interface ParityCliOptions {
  seed: string;
  ticks: string;
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
      "--ip-weight-limit <weight>",
      "enforce Hyperliquid's per-IP limit: request weight per minute per client source address (the exchange's is 1200); off by default",
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
          : intOption("--ip-weight-limit", opts.ipWeightLimit, 1, 100_000_000);
      const startingBalance = opts.startingBalance;
      if (startingBalance !== undefined && !/^\d+(\.\d{1,6})?$/.test(startingBalance)) {
        throw new UserError(
          `--starting-balance must be a USDC amount such as 10000, got "${startingBalance}"`,
        );
      }
      const dir = opts.dataDir ?? (process.env.DATA_DIR || undefined);
      const stateDir = dir === undefined ? undefined : join(resolve(dir), "sim");
      // One process runs a saved world at a time: one-off paper commands wait for this lock.
      const lock = stateDir === undefined ? undefined : acquireRunLock(stateDir, "world", "hl sim serve");
      let world: Awaited<ReturnType<typeof startSimWorld>>;
      try {
        world = await startSimWorld({
          port,
          host: opts.host,
          seed,
          speed,
          startingBalance,
          stateDir,
          ipWeightLimit,
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
        throw err;
      }
      const limit = ipWeightLimit === undefined ? "" : `, ${ipWeightLimit} weight/min per IP`;
      process.stdout.write(
        `sim world listening on ${world.url} (seed ${world.seed}, speed ${speed}${limit})\n`,
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
    .action(async (strategy: string, opts: ParityCliOptions) => {
      const seed = intOption("--seed", opts.seed, 0, 2 ** 32 - 1);
      const ticks = intOption("--ticks", opts.ticks, 1, 100_000);
      const dataDir = mkdtempSync(join(tmpdir(), "hl-parity-"));
      try {
        const report = await runParity({ strategy, seed, ticks, dataDir });
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
}
