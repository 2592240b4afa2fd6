import { existsSync } from "node:fs";
import { join } from "node:path";
import { agentLabel } from "../../alerts/agent-label.ts";
import { type Alerter, alerterFromEnv } from "../../alerts/webhook.ts";
import { UserError } from "../../core/errors.ts";
import type { runStrategy } from "../../engine/runner.ts";
import { readKvFile } from "../../engine/state-store.ts";
import { statusFromKv } from "../../engine/status.ts";
import { HEALTHY_AFTER_MS, restartDelayMs } from "../agent/supervisor.ts";
import type { HostedSpec } from "./run.ts";
import type { RunningService, ServeContext } from "./types.ts";

/** The environment variable carrying a traders host's runs, as JSON (`HostedSpec[]` of `hl run …`). */
export const HOSTED_TRADERS_ENV = "HL_HOSTED_TRADERS";

/** What an `hl run` command line of a hosted trader says. */
export interface TraderArgs {
  strategy: string;
  instrument: string;
  tickSeconds: number;
  network?: string;
  params: Record<string, number>;
}

/**
 * `hl run STRATEGY [-i INSTRUMENT] [--tick S] [--network N] [-p name=value]…`, the form `hl up` gives
 * its house agents. Anything else is refused rather than half understood.
 */
export function parseTraderArgs(args: readonly string[]): TraderArgs {
  const [command, strategy, ...rest] = args;
  const line = args.join(" ");
  if (command !== "run" || !strategy || strategy.startsWith("-"))
    throw new UserError(`not an \`hl run STRATEGY\` command: ${line}`);
  const out: TraderArgs = { strategy, instrument: "ETH-PERP", tickSeconds: 10, params: {} };
  for (let i = 0; i < rest.length; i += 2) {
    const flag = rest[i]!;
    const value = rest[i + 1];
    if (!["-i", "--instrument", "-t", "--tick", "--network", "-p", "--param"].includes(flag))
      throw new UserError(`unsupported option ${flag} for a hosted trader: ${line}`);
    if (value === undefined) throw new UserError(`${flag} needs a value in: ${line}`);
    if (flag === "-i" || flag === "--instrument") out.instrument = value;
    else if (flag === "-t" || flag === "--tick") {
      const n = Number(value);
      if (!Number.isFinite(n) || n < 0)
        throw new UserError(`--tick must be a non-negative number in: ${line}`);
      out.tickSeconds = n;
    } else if (flag === "--network") out.network = value;
    else if (flag === "-p" || flag === "--param") {
      const m = /^([a-z0-9_]+)=(.+)$/i.exec(value);
      const n = m ? Number(m[2]) : Number.NaN;
      if (!m || !Number.isFinite(n)) throw new UserError(`--param must look like name=number in: ${line}`);
      out.params[m[1]!] = n;
    }
  }
  return out;
}

/**
 * Wait before a trader's restart after its n-th quick stop in a row: the same rule as a supervised
 * trading process (an isolated stop restarts at once, a loop backs off 2 s, 4 s … up to 30 s).
 */
export function traderRestartDelayMs(quickStops: number): number {
  return restartDelayMs(quickStops, 2_000, 30_000);
}

/**
 * Restarts after quick stops in a row before giving up: the 6th quick stop in a row is final, as
 * when `hl up --split` supervises a house agent in its own process (5 restarts).
 */
const MAX_QUICK_RESTARTS = 5;

/** In protect-only mode, an engine that stopped again is started again after this long. */
const PROTECT_ONLY_RETRY_MS = 30_000;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** What hostTraders runs on; tests replace the engine and the clock. */
export interface TraderHostDeps {
  /** Runs one engine until it stops (default: the strategy runner, loaded on start). */
  run?: typeof runStrategy;
  /** The wait before a restart; ends early when `signal` aborts. */
  wait?: (ms: number, signal: AbortSignal) => Promise<void>;
  now?: () => number;
  /** Operator alerts when a trader is given up on (default: from the host's HL_ALERT_WEBHOOK). */
  alerter?: Alerter;
  /** The position an engine left in its data dir (default: read from its `state.db`). */
  positionQty?: (engineDir: string) => number;
}

/** The net position an engine saved in `state.db`, 0 when there is none to read. */
function savedPositionQty(engineDir: string): number {
  const path = join(engineDir, "state.db");
  if (!existsSync(path)) return 0;
  try {
    const s = statusFromKv(readKvFile(path));
    return s.status === "running" ? s.position_qty : 0;
  } catch {
    return 0;
  }
}

/**
 * Run several `hl run` trading engines in this process, each with its own environment (and so its
 * own data directory and paper wallet); log lines carry the trader's name. An engine that fails or
 * stops on its own is restarted with a back-off, the way a supervisor restarts its process, and given
 * up on after repeated quick failures; one that stopped on a risk hard stop stays stopped (and the
 * console says why). The others keep trading.
 */
export async function hostTraders(
  specs: readonly HostedSpec[],
  host: ServeContext,
  deps: TraderHostDeps = {},
): Promise<RunningService> {
  const parsed = specs.map((spec) => ({ spec, args: parseTraderArgs(spec.args) }));
  const run = deps.run ?? (await import("../../engine/runner.ts")).runStrategy;
  const wait = deps.wait ?? sleep;
  const now = deps.now ?? Date.now;
  const alerter = deps.alerter ?? alerterFromEnv("hl traders", host.env);
  const positionQty = deps.positionQty ?? savedPositionQty;
  const stop = new AbortController();
  const loops = parsed.map(async ({ spec, args }) => {
    const env: Record<string, string | undefined> = {
      ...host.env,
      [HOSTED_TRADERS_ENV]: undefined,
      ...spec.env,
    };
    const log = (line: string) => host.log(`[${spec.name}] ${line}`);
    const dataDir = env.DATA_DIR ?? "./data";
    const engineDir = join(dataDir, "cli");
    let quickStops = 0;
    let protectOnly = false;
    while (!stop.signal.aborted) {
      const started = now();
      try {
        const r = await run({
          ...(protectOnly ? { entriesDisabled: true } : {}),
          strategy: args.strategy,
          instrument: args.instrument,
          tickSeconds: args.tickSeconds,
          maxTicks: 0,
          mock: false,
          dryRun: false,
          ...(args.network ? { network: args.network } : {}),
          resume: true,
          dataDir: engineDir,
          recordsDir: dataDir,
          params: args.params,
          env,
          signal: stop.signal,
          log,
          onStart: (info) =>
            log(`${args.strategy} on ${info.instrument} (${info.network}), tick ${args.tickSeconds}s`),
        });
        if (stop.signal.aborted) return;
        if (r.stopReason === "halted") {
          // A hard stop is final: restarting would undo it (as `hl run` alone, or under --split).
          host.warn(
            `[${spec.name}] risk hard stop: ${r.haltReason ?? "limit breached"}; stays stopped until it is started with --fresh`,
          );
          return;
        }
        if (r.stopReason === "delisted") {
          // The exchange will never trade the market again: restarting would only fail.
          host.warn(`[${spec.name}] ${args.instrument} was delisted by the exchange; stopped for good`);
          return;
        }
        log(`stopped (${r.stopReason})`);
      } catch (err) {
        if (stop.signal.aborted) return;
        host.warn(`[${spec.name}] failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (protectOnly) {
        // Protect-only ends once the position it held is gone; until then it is retried slowly.
        if (positionQty(engineDir) === 0) {
          host.warn(`[${spec.name}] protect-only: position closed; stopped`);
          return;
        }
        await wait(PROTECT_ONLY_RETRY_MS, stop.signal);
        continue;
      }
      quickStops = now() - started >= HEALTHY_AFTER_MS ? 1 : quickStops + 1;
      if (quickStops > MAX_QUICK_RESTARTS) {
        const held = positionQty(engineDir);
        const line = `[${spec.name}] keeps stopping; gave up (the other traders keep running)`;
        host.warn(line);
        // The alert names the agent (its name and data directory) and what it trades.
        const who = `[${spec.name}] ${args.strategy} ${args.instrument} · ${agentLabel(dataDir, env)}`;
        if (held === 0) {
          alerter.send("gave_up", `${who} keeps stopping; gave up; it holds no position`);
          return;
        }
        // Its position keeps its exit rules: the engine runs again, never adding to it.
        protectOnly = true;
        const detail = `protect-only: position ${held} kept under its risk limits and strategy exits, no entries (started again ${PROTECT_ONLY_RETRY_MS / 1000} s after any stop while the position is open)`;
        host.warn(`[${spec.name}] ${detail}`);
        alerter.send("protect_only", `${who} keeps stopping; ${detail}`);
        continue;
      }
      const delay = traderRestartDelayMs(quickStops);
      if (delay === 0) {
        log("restarting at once");
        continue;
      }
      log(`restarting in ${Math.round(delay / 1000)} s`);
      await wait(delay, stop.signal);
    }
  });
  return {
    async close() {
      stop.abort();
      await Promise.all(loops);
      await alerter.flush();
    },
  };
}
