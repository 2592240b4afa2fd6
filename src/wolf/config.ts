import { z } from "zod";
import { UserError } from "../core/errors.ts";
import { DSL_PRESET_NAMES } from "../guard/config.ts";

/** Every WOLF setting with its default; the effective config is persisted in state.json. */
export const wolfConfigSchema = z.object({
  total_budget: z.number().positive().default(10_000),
  max_slots: z.number().int().min(1).max(20).default(3),
  leverage: z.number().positive().default(10),
  /** USD margin per slot; 0 = total_budget / max_slots. */
  margin_per_slot: z.number().min(0).default(0),
  scanner_score_threshold: z.number().default(170),
  movers_immediate_auto_entry: z.boolean().default(true),
  /** IMMEDIATE_MOVER still needs this confidence (an erratic, halved signal does not auto-enter). */
  movers_immediate_min_confidence: z.number().default(75),
  movers_confidence_threshold: z.number().default(70),
  smart_money_confidence_threshold: z.number().default(60),
  conviction_collapse_minutes: z.number().positive().default(30),
  stagnation_minutes: z.number().positive().default(60),
  stagnation_min_roe: z.number().default(3),
  max_negative_roe: z.number().max(0).default(-5),
  /** USD; realized today plus unrealized of open slots at or below −limit closes everything. */
  daily_loss_limit: z.number().positive().default(500),
  max_same_direction: z.number().int().min(1).default(2),
  max_correlated: z.number().int().min(1).default(2),
  dsl_preset: z.enum(DSL_PRESET_NAMES as [string, ...string[]]).default("tight"),
  dsl_leverage_override: z.number().positive().nullable().default(null),
  dsl_breach_interval_ms: z.number().int().min(0).default(10_000),
  tick_interval_s: z.number().positive().default(60),
  scanner_interval_ticks: z.number().int().min(1).default(15),
  reconcile_interval_ticks: z.number().int().min(1).default(5),
  review_interval_ticks: z.number().int().min(1).default(240),
  review_hour_utc: z.number().int().min(0).max(23).default(4),
  entry_slippage: z.number().positive().max(0.05).default(0.005),
  exit_slippage: z.number().positive().max(0.1).default(0.01),
  /** Candle series are refetched at most this often (request weight: see src/signals/source.ts). */
  candle_refresh_s: z.number().min(0).default(300),
  /** Exchange minimum order value (USD). */
  min_order_usd: z.number().min(0).default(10),
  closed_history_size: z.number().int().min(5).default(50),
  smart_money_enabled: z.boolean().default(false),
  smart_money_addresses: z.array(z.string()).default([]),
  smart_money_min_position_usd: z.number().default(10_000),
  smart_money_conviction_threshold: z.number().int().min(1).default(2),
  smart_money_poll_interval_ticks: z.number().int().min(1).default(5),
  excluded_instruments: z.array(z.string()).default([]),
  /** Signal engines WOLF runs: their presets, and the 24 h volume floors (null = the preset's). */
  scanner_preset: z.string().default("default"),
  scanner_min_volume_24h: z.number().min(0).nullable().default(null),
  movers_preset: z.string().default("default"),
  movers_min_volume_24h: z.number().min(0).nullable().default(null),
});

export type WolfConfig = z.output<typeof wolfConfigSchema>;
export type WolfConfigInput = z.input<typeof wolfConfigSchema>;

export const WOLF_PRESETS = {
  default: {},
  conservative: {
    max_slots: 2,
    leverage: 5,
    scanner_score_threshold: 190,
    movers_confidence_threshold: 80,
    daily_loss_limit: 250,
  },
  aggressive: {
    max_slots: 3,
    leverage: 15,
    scanner_score_threshold: 150,
    movers_confidence_threshold: 60,
    daily_loss_limit: 1000,
  },
} as const satisfies Record<string, WolfConfigInput>;

export type WolfPresetName = keyof typeof WOLF_PRESETS;
export const WOLF_PRESET_NAMES = Object.keys(WOLF_PRESETS) as WolfPresetName[];

export interface WolfOverrides {
  budget?: number;
  slots?: number;
  leverage?: number;
  tickSeconds?: number;
}

/** Preset + explicit overrides → effective config (margin per slot derived when not given). */
export function buildWolfConfig(
  preset: string,
  overrides: WolfOverrides = {},
  extra: WolfConfigInput = {},
): WolfConfig {
  if (!(preset in WOLF_PRESETS)) {
    throw new UserError(`Unknown WOLF preset '${preset}'. Available: ${WOLF_PRESET_NAMES.join(", ")}`);
  }
  const merged: WolfConfigInput = { ...WOLF_PRESETS[preset as WolfPresetName], ...extra };
  if (overrides.budget !== undefined) merged.total_budget = overrides.budget;
  if (overrides.slots !== undefined) merged.max_slots = overrides.slots;
  if (overrides.leverage !== undefined) merged.leverage = overrides.leverage;
  if (overrides.tickSeconds !== undefined) merged.tick_interval_s = overrides.tickSeconds;
  const r = wolfConfigSchema.safeParse(merged);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new UserError(`invalid WOLF config at ${issue?.path.join(".")}: ${issue?.message}`);
  }
  const cfg = r.data;
  if (cfg.margin_per_slot === 0) cfg.margin_per_slot = cfg.total_budget / cfg.max_slots;
  return cfg;
}

/** Tick seconds from the environment: WOLF_TICK, else TICK_INTERVAL, else undefined (preset default 60). */
export function tickFromEnv(env: Record<string, string | undefined> = process.env): number | undefined {
  for (const name of ["WOLF_TICK", "TICK_INTERVAL"] as const) {
    const raw = env[name];
    if (raw === undefined || raw === "") continue;
    const v = Number(raw);
    if (!Number.isFinite(v) || v <= 0)
      throw new UserError(`${name} must be a positive number of seconds, got "${raw}"`);
    return v;
  }
  return undefined;
}

/** Correlation groups: at most `max_correlated` open positions per group. */
export const CORRELATION_GROUPS: Record<string, readonly string[]> = {
  large_cap: ["BTC", "ETH"],
  l2: ["ARB", "OP", "STRK", "MANTA", "BLAST"],
  alt_l1: ["SOL", "AVAX", "SUI", "SEI", "APT", "TIA"],
  defi_blue: ["AAVE", "UNI", "MKR", "COMP", "CRV", "SNX", "LINK"],
  meme: ["DOGE", "SHIB", "PEPE", "WIF", "BONK", "kPEPE", "kSHIB", "kBONK"],
  ai: ["FET", "RNDR", "TAO", "NEAR"],
};

export function correlationGroup(coin: string): string | undefined {
  const bare = coin.includes(":") ? coin.slice(coin.indexOf(":") + 1) : coin;
  for (const [group, members] of Object.entries(CORRELATION_GROUPS)) if (members.includes(bare)) return group;
  return undefined;
}
