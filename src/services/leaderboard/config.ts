import { join } from "node:path";
import { z } from "zod";
import { DEFAULT_PORTS } from "../../config/defaults.ts";
import { apiUrl, dataDir, envPort } from "../../config/env.ts";
import { UserError } from "../../core/errors.ts";
import { databaseUrl } from "../../db/pool.ts";
import type { LeaderboardNetwork } from "./account-source.ts";

type Env = Record<string, string | undefined>;

export interface LeaderboardConfig {
  port: number;
  host: string;
  dbPath: string;
  /** DATABASE_URL: Postgres shared by replicas instead of the SQLite file at `dbPath`. */
  databaseUrl?: string | undefined;
  corsOrigin: string;
  /** Exchange API per network: HL_API_URL_TESTNET / _MAINNET / _PAPER, else the shared client config. */
  apiUrls: Record<LeaderboardNetwork, string>;
  refreshIntervalMs: number;
  concurrency: number;
  agentTimeoutMs: number;
  staggerMs: number;
  /**
   * LEADERBOARD_REFRESH_BY=workers: `hl leaderboard worker` processes refresh the agents (Postgres
   * queue); the service only rebuilds its boards from the store every refresh interval.
   */
  refreshByWorkers: boolean;
  /** Registrations per client (IP) per minute, and the burst allowed at once. */
  registerPerMinute: number;
  registerBurst: number;
  /** Reverse proxies whose X-Forwarded-For names the client (loopback always counts as one). */
  trustedProxies: string[];
}

const positive = z.coerce.number().positive();
const positiveInt = z.coerce.number().int().positive();

function read<T>(env: Env, name: string, schema: z.ZodType<T>, fallback: T, what: string): T {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new UserError(`${name} must be ${what}, got "${raw}"`);
  return parsed.data;
}

function refreshBy(raw: string | undefined): boolean {
  if (raw === undefined || raw === "" || raw === "service") return false;
  if (raw === "workers") return true;
  throw new UserError(`LEADERBOARD_REFRESH_BY must be "service" or "workers", got "${raw}"`);
}

/**
 * Environment of the leaderboard: LEADERBOARD_PORT (8090), LEADERBOARD_HOST (127.0.0.1), LEADERBOARD_DB ($DATA_DIR/leaderboard.db),
 * DATABASE_URL (Postgres instead of LEADERBOARD_DB),
 * CORS_ORIGIN (*), HL_API_URL_TESTNET / HL_API_URL_MAINNET, LEADERBOARD_REFRESH_S (45),
 * LEADERBOARD_CONCURRENCY (4), LEADERBOARD_AGENT_TIMEOUT_S (10), LEADERBOARD_STAGGER_MS (100),
 * LEADERBOARD_REGISTER_PER_MIN (10), LEADERBOARD_REGISTER_BURST (5) and LEADERBOARD_TRUSTED_PROXIES
 * (comma-separated proxy addresses).
 */
export function leaderboardConfig(
  env: Env = process.env,
  overrides: { port?: number } = {},
): LeaderboardConfig {
  const url = (network: LeaderboardNetwork, name: string) =>
    (env[name] || apiUrl(network, env)).replace(/\/+$/, "");
  return {
    port: overrides.port ?? envPort("LEADERBOARD_PORT", DEFAULT_PORTS.leaderboard, env),
    host: env.LEADERBOARD_HOST || "127.0.0.1",
    dbPath: env.LEADERBOARD_DB || join(dataDir(env), "leaderboard.db"),
    databaseUrl: databaseUrl(env),
    corsOrigin: env.CORS_ORIGIN || "*",
    apiUrls: {
      testnet: url("testnet", "HL_API_URL_TESTNET"),
      mainnet: url("mainnet", "HL_API_URL_MAINNET"),
      paper: url("paper", "HL_API_URL_PAPER"),
    },
    refreshIntervalMs:
      read(env, "LEADERBOARD_REFRESH_S", positive, 45, "a positive number of seconds") * 1000,
    concurrency: read(env, "LEADERBOARD_CONCURRENCY", positiveInt, 4, "a positive integer"),
    agentTimeoutMs:
      read(env, "LEADERBOARD_AGENT_TIMEOUT_S", positive, 10, "a positive number of seconds") * 1000,
    staggerMs: read(
      env,
      "LEADERBOARD_STAGGER_MS",
      z.coerce.number().int().nonnegative(),
      100,
      "milliseconds (≥ 0)",
    ),
    refreshByWorkers: refreshBy(env.LEADERBOARD_REFRESH_BY),
    registerPerMinute: read(env, "LEADERBOARD_REGISTER_PER_MIN", positive, 10, "a positive number"),
    registerBurst: read(env, "LEADERBOARD_REGISTER_BURST", positiveInt, 5, "a positive integer"),
    trustedProxies: (env.LEADERBOARD_TRUSTED_PROXIES ?? "")
      .split(",")
      .map((a) => a.trim())
      .filter(Boolean),
  };
}
