import { randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { hostname } from "node:os";
import { z } from "zod";
import { UserError } from "../../core/errors.ts";
import { createPool, requireDatabaseUrl } from "../../db/pool.ts";
import { RateBudget } from "../../exchange/index.ts";
import { hlAccountSource } from "./account-source.ts";
import { leaderboardConfig } from "./config.ts";
import { RefreshQueue } from "./queue.ts";
import { RefreshWorker } from "./worker.ts";

type Env = Record<string, string | undefined>;

interface WorkerSettings {
  /** Local address the worker's exchange connections come from (its own per-IP limit). */
  sourceAddress?: string;
  /** Request weight per minute of this worker (HL_RATE_WEIGHT_PER_MIN, default 1200: the exchange's per-IP limit). */
  weightPerMinute: number;
  /** How long a claimed agent stays this worker's (LEADERBOARD_LEASE_S, default 30 s). */
  leaseMs: number;
}

function workerSettings(env: Env, sourceAddress: string | undefined): WorkerSettings {
  if (sourceAddress !== undefined && isIP(sourceAddress) === 0) {
    throw new UserError(`--source-address must be an IP address of this machine, got "${sourceAddress}"`);
  }
  const number = (name: string, fallback: number) => {
    const raw = env[name];
    if (raw === undefined || raw === "") return fallback;
    const parsed = z.coerce.number().positive().safeParse(raw);
    if (!parsed.success) throw new UserError(`${name} must be a positive number, got "${raw}"`);
    return parsed.data;
  };
  return {
    sourceAddress,
    weightPerMinute: number("HL_RATE_WEIGHT_PER_MIN", 1200),
    leaseMs: number("LEADERBOARD_LEASE_S", 30) * 1000,
  };
}

/**
 * `hl leaderboard worker`: one refresh worker on the Postgres queue (DATABASE_URL), with its own
 * weight budget and, when given, its own source address.
 */
export async function startRefreshWorker(
  env: Env,
  sourceAddress: string | undefined,
): Promise<{ worker: RefreshWorker; id: string; close(): Promise<void> }> {
  const config = leaderboardConfig(env);
  const settings = workerSettings(env, sourceAddress);
  if (settings.leaseMs < 2 * config.agentTimeoutMs) {
    throw new UserError(
      `LEADERBOARD_LEASE_S (${settings.leaseMs / 1000}) must be at least twice LEADERBOARD_AGENT_TIMEOUT_S (${config.agentTimeoutMs / 1000})`,
    );
  }
  const pool = createPool(requireDatabaseUrl(env as NodeJS.ProcessEnv), env as NodeJS.ProcessEnv);
  const accounts = await hlAccountSource(config.apiUrls, config.agentTimeoutMs, {
    env,
    budget: new RateBudget({ weightPerMinute: settings.weightPerMinute }),
    localAddress: settings.sourceAddress,
  });
  const id = `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  const worker = new RefreshWorker({
    queue: new RefreshQueue(pool, id, settings.leaseMs),
    source: accounts.source,
    concurrency: config.concurrency,
    intervalMs: config.refreshIntervalMs,
    agentTimeoutMs: config.agentTimeoutMs,
  });
  worker.start();
  return {
    worker,
    id,
    async close() {
      await worker.stop();
      await accounts.close();
      await pool.end();
    },
  };
}
