import { join } from "node:path";
import { z } from "zod";
import { DEFAULT_PORTS, type Network } from "../../config/defaults.ts";
import { dataDir, envPort } from "../../config/env.ts";
import { UserError } from "../../core/errors.ts";
import { databaseUrl } from "../../db/pool.ts";
import { POINTS_ELIGIBLE_BUILDERS } from "../../wallet/builder-codes.ts";
import { parseTime } from "../feeds/config.ts";
import { type LocalAgent, parseLocalAgents } from "./local-agents.ts";
import { BTCSWP_RULES, type ScoringRules } from "./scoring.ts";

type Env = Record<string, string | undefined>;

/** The three eligible builder codes: Nunchi (ours, the orders' default), Based and TreadFi. */
export const DEFAULT_BUILDERS = POINTS_ELIGIBLE_BUILDERS;

const PUBLIC_STATS_URL = "https://stats-data.hyperliquid.xyz";

export interface PointsConfig {
  /** The network whose fills are scored (shown on the page). */
  network?: Network;
  port: number;
  host: string;
  dbPath: string;
  /** DATABASE_URL: Postgres shared by replicas instead of the SQLite file at `dbPath`. */
  databaseUrl?: string | undefined;
  /** Exchange coin of the scored market. */
  coin: string;
  market: string;
  rules: ScoringRules;
  /** Eligible builders; addresses compared lowercase. */
  builders: { name: string; address: string }[];
  /** Base URL of the builder fill files and the network folder under it. */
  statsUrl: string;
  statsNetwork: "Mainnet" | "Testnet";
  /** How long a file answered 403 (not published) is believed before asking again. */
  missingFileRetryMs: number;
  /** Fills before this time do not count (ms). */
  programStartMs: number;
  /** A fill whose latest stored mark is older than this is excluded as `no_mark`. */
  markToleranceMs: number;
  /** Base URL of the BTCSWP feed origin (its /api/stream and /api/history). */
  feedUrl: string;
  /** How long a wallet's result is reused. */
  cacheMs: number;
  /** Every this many ms, sync the fills of every wallet seen so far (0 = never). */
  followMs: number;
  /** Days (UTC, counting today as 0) whose unpublished files allow provisional attribution. */
  provisionalDays: number;
  /** Agents trading on this machine (`hl up`), whose wallets the page offers (POINTS_LOCAL_AGENTS). */
  localAgents?: LocalAgent[];
}

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);

function intSetting(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const parsed = z.coerce.number().int().min(min).safeParse(raw);
  if (!parsed.success) throw new UserError(`${name} must be a whole number ≥ ${min}, got "${raw}"`);
  return parsed.data;
}

/** POINTS_BUILDERS: comma-separated `address` or `name=address` entries. */
function parseBuilders(raw: string): { name: string; address: string }[] {
  return raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const [name, addr] = entry.includes("=") ? entry.split("=", 2) : [undefined, entry];
      if (!address.safeParse(addr).success)
        throw new UserError(`POINTS_BUILDERS: "${addr}" is not an address (0x + 40 hex)`);
      return { name: name?.trim() || addr!, address: addr!.trim() };
    });
}

/**
 * Points service settings from the environment:
 *   POINTS_PORT (8300), POINTS_HOST (127.0.0.1), POINTS_DB ($DATA_DIR/points/points.db),
 *   DATABASE_URL (Postgres instead of POINTS_DB),
 *   POINTS_BUILDERS (eligible builders, `addr` or `name=addr`, comma-separated; default Nunchi,
 *   Based, TreadFi), POINTS_STATS_URL (builder fill files; default the public stats host, or
 *   `<sim>/stats` on paper), POINTS_STATS_NETWORK (Mainnet|Testnet folder; default Mainnet on
 *   mainnet, else Testnet), POINTS_FILE_RETRY_MS (ask again for an unpublished file after this
 *   long, 300000), POINTS_PROGRAM_START (ISO or ms; default 0 = every reachable fill),
 *   POINTS_MARK_TOLERANCE_MS (60000), BTCSWP_FEED_URL (a feed origin or
 *   `<proxy>/api/feeds/btcswp`; default the local BTCSWP origin, FEEDS_PORT+1), POINTS_CACHE_MS
 *   (15000), POINTS_PROVISIONAL_DAYS (days before today still provisional, 1), POINTS_FOLLOW_MS (how
 *   often the fills of every wallet seen so far are synced, 600000; 0 = only on request),
 *   POINTS_LOCAL_AGENTS (JSON `[{name, dir}]` of agents on this machine, set by `hl up`).
 */
export function pointsConfig(network: Network, apiUrl: string, env: Env = process.env): PointsConfig {
  const statsNetwork = env.POINTS_STATS_NETWORK || (network === "mainnet" ? "Mainnet" : "Testnet");
  if (statsNetwork !== "Mainnet" && statsNetwork !== "Testnet")
    throw new UserError(`POINTS_STATS_NETWORK must be Mainnet or Testnet, got "${statsNetwork}"`);
  const feedsPort = envPort("FEEDS_PORT", DEFAULT_PORTS.feeds, env);
  return {
    network,
    port: envPort("POINTS_PORT", DEFAULT_PORTS.points, env),
    host: env.POINTS_HOST || "127.0.0.1",
    dbPath: env.POINTS_DB || join(dataDir(env), "points", "points.db"),
    databaseUrl: databaseUrl(env),
    coin: "yex:BTCSWP",
    market: "BTCSWP",
    rules: BTCSWP_RULES,
    builders: env.POINTS_BUILDERS ? parseBuilders(env.POINTS_BUILDERS) : [...DEFAULT_BUILDERS],
    statsUrl: (env.POINTS_STATS_URL || (network === "paper" ? `${apiUrl}/stats` : PUBLIC_STATS_URL)).replace(
      /\/+$/,
      "",
    ),
    statsNetwork,
    missingFileRetryMs: intSetting(env, "POINTS_FILE_RETRY_MS", 300_000),
    programStartMs: env.POINTS_PROGRAM_START
      ? parseTime("POINTS_PROGRAM_START", env.POINTS_PROGRAM_START)
      : 0,
    markToleranceMs: intSetting(env, "POINTS_MARK_TOLERANCE_MS", 60_000),
    feedUrl: (env.BTCSWP_FEED_URL || `http://127.0.0.1:${feedsPort + 1}`).replace(/\/+$/, ""),
    cacheMs: intSetting(env, "POINTS_CACHE_MS", 15_000),
    followMs: intSetting(env, "POINTS_FOLLOW_MS", 600_000),
    provisionalDays: intSetting(env, "POINTS_PROVISIONAL_DAYS", 1),
    localAgents: parseLocalAgents(env.POINTS_LOCAL_AGENTS),
  };
}

export function isWalletAddress(s: string): boolean {
  return address.safeParse(s).success;
}
