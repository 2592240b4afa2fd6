import { join } from "node:path";
import { z } from "zod";
import { DEFAULT_PORTS } from "../../config/defaults.ts";
import { dataDir, envPort } from "../../config/env.ts";
import { UserError } from "../../core/errors.ts";
import { FEED_NAMES, type FeedName } from "./profiles.ts";

type Env = Record<string, string | undefined>;

/**
 * Feeds service settings from the environment:
 *   FEEDS_PORT (8100; origins on +1…+4), FEEDS_HOST (127.0.0.1), FEEDS_DB ($DATA_DIR/feeds/feeds.db),
 *   FEEDS_POLL_MS (5000), FEEDS_MAX_SILENCE_MS (30000), FEEDS_INCEPTION (ISO time or epoch ms; first
 *   start only, default the current hour), FEEDS_UPSTREAM_<FEED> (proxy upstream of a feed, e.g.
 *   FEEDS_UPSTREAM_BTCSWP=https://btcswp.example.com).
 */
interface FeedsConfig {
  port: number;
  host: string;
  dbPath: string;
  pollMs: number;
  maxSilenceMs: number;
  inceptionMs: number | undefined;
  upstreams: Partial<Record<FeedName, string>>;
}

const positiveMs = z.coerce.number().int().min(1);

function msSetting(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const parsed = positiveMs.safeParse(raw);
  if (!parsed.success)
    throw new UserError(`${name} must be a positive whole number of milliseconds, got "${raw}"`);
  return parsed.data;
}

/** An ISO time or epoch milliseconds. */
export function parseTime(name: string, raw: string): number {
  const ms = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (!Number.isFinite(ms))
    throw new UserError(`${name} must be an ISO time or epoch milliseconds, got "${raw}"`);
  return ms;
}

export function feedsConfig(env: Env = process.env): FeedsConfig {
  const upstreams: Partial<Record<FeedName, string>> = {};
  for (const name of FEED_NAMES) {
    const url = env[`FEEDS_UPSTREAM_${name.toUpperCase()}`];
    if (url) upstreams[name] = url.replace(/\/+$/, "");
  }
  const inception = env.FEEDS_INCEPTION;
  return {
    port: envPort("FEEDS_PORT", DEFAULT_PORTS.feeds, env),
    host: env.FEEDS_HOST || "127.0.0.1",
    dbPath: env.FEEDS_DB || join(dataDir(env), "feeds", "feeds.db"),
    pollMs: msSetting(env, "FEEDS_POLL_MS", 5_000),
    maxSilenceMs: msSetting(env, "FEEDS_MAX_SILENCE_MS", 30_000),
    inceptionMs: inception ? parseTime("FEEDS_INCEPTION", inception) : undefined,
    upstreams,
  };
}
