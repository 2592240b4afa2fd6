import { join } from "node:path";
import { z } from "zod";
import { DEFAULT_PORTS } from "../../config/defaults.ts";
import { dataDir, envPort } from "../../config/env.ts";
import { UserError } from "../../core/errors.ts";
import {
  type CatalogEntry,
  DEFAULT_ALPHA,
  DEFAULT_CATALOG,
  DEFAULT_DERIVATIVE_CLASS_WEIGHTS,
} from "./catalog.ts";
import { DERIVATIVE_CLASSES, type DerivativeClass } from "./methodology.ts";

type Env = Record<string, string | undefined>;

export interface IsfrConfig {
  port: number;
  host: string;
  dbPath: string;
  yieldsUrl: string;
  snapshotIntervalMs: number;
  staleAfterMs: number;
  sourceTimeoutMs: number;
  alpha: string;
  derivativeClassWeights: Record<DerivativeClass, string>;
  catalog: CatalogEntry[];
  corsOrigin: string;
}

const DEFAULT_YIELDS_API_URL = "https://yields.llama.fi";

const positive = z.coerce.number().positive();
const weight = z.string().regex(/^\d+(\.\d+)?$/, "a non-negative decimal");

function seconds(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const parsed = positive.safeParse(raw);
  if (!parsed.success) throw new UserError(`${name} must be a positive number of seconds, got "${raw}"`);
  return parsed.data;
}

/** "a=0.6,b=0.4" → {a: "0.6", b: "0.4"}, each key checked against `known`. */
function weightList(env: Env, name: string, known: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const raw = env[name];
  if (!raw) return out;
  for (const part of raw.split(",")) {
    const [key, value] = part.split("=").map((s) => s.trim());
    if (!key || !known.includes(key) || !weight.safeParse(value).success) {
      throw new UserError(
        `${name}: expected id=weight pairs with ids from ${known.join(", ")}, got "${part}"`,
      );
    }
    out.set(key, value!);
  }
  return out;
}

/**
 * Environment of `hl isfr serve`: ISFR_PORT, ISFR_HOST (127.0.0.1), ISFR_DB, YIELDS_API_URL, ISFR_SNAPSHOT_INTERVAL_S,
 * ISFR_STALE_AFTER_S (default twice the snapshot interval), ISFR_SOURCE_TIMEOUT_S, ISFR_ALPHA,
 * ISFR_SOURCE_WEIGHTS ("aave-v3-usdc=0.6,…"), ISFR_CLASS_WEIGHTS ("structured=0.4,funding=0.4,staking=0.2"),
 * CORS_ORIGIN.
 */
export function isfrConfig(
  env: Env = process.env,
  overrides: { port?: number; defaultYieldsUrl?: string } = {},
): IsfrConfig {
  const intervalS = seconds(env, "ISFR_SNAPSHOT_INTERVAL_S", 3600);
  const alpha = env.ISFR_ALPHA ?? DEFAULT_ALPHA;
  const a = Number(alpha);
  if (!weight.safeParse(alpha).success || !(a > 0 && a < 1)) {
    throw new UserError(`ISFR_ALPHA must be a decimal strictly between 0 and 1, got "${alpha}"`);
  }
  const sourceWeights = weightList(
    env,
    "ISFR_SOURCE_WEIGHTS",
    DEFAULT_CATALOG.map((e) => e.id),
  );
  const classWeights = weightList(env, "ISFR_CLASS_WEIGHTS", DERIVATIVE_CLASSES);
  return {
    port: overrides.port ?? envPort("ISFR_PORT", DEFAULT_PORTS.isfr, env),
    host: env.ISFR_HOST || "127.0.0.1",
    dbPath: env.ISFR_DB || join(dataDir(env), "isfr.db"),
    yieldsUrl: (env.YIELDS_API_URL || overrides.defaultYieldsUrl || DEFAULT_YIELDS_API_URL).replace(
      /\/+$/,
      "",
    ),
    snapshotIntervalMs: intervalS * 1000,
    staleAfterMs: seconds(env, "ISFR_STALE_AFTER_S", 2 * intervalS) * 1000,
    sourceTimeoutMs: seconds(env, "ISFR_SOURCE_TIMEOUT_S", 10) * 1000,
    alpha,
    derivativeClassWeights: {
      structured: classWeights.get("structured") ?? DEFAULT_DERIVATIVE_CLASS_WEIGHTS.structured,
      funding: classWeights.get("funding") ?? DEFAULT_DERIVATIVE_CLASS_WEIGHTS.funding,
      staking: classWeights.get("staking") ?? DEFAULT_DERIVATIVE_CLASS_WEIGHTS.staking,
    },
    catalog: DEFAULT_CATALOG.map((e) => ({ ...e, weight: sourceWeights.get(e.id) ?? e.weight })),
    corsOrigin: env.CORS_ORIGIN || "*",
  };
}
