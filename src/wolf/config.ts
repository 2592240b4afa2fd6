import { z } from "zod";
import { UserError } from "../core/errors.ts";
import { DSL_PRESET_NAMES } from "../guard/config.ts";

/**
 * Every WOLF setting with its default and its meaning; the effective config is persisted in
 * state.json. The descriptions are the documentation: `hl wolf config` and docs/wolf-config.md
 * print them from here.
 */
export const wolfConfigSchema = z.object({
  total_budget: z
    .number()
    .positive()
    .default(10_000)
    .describe("USD of margin WOLF may commit across all slots."),
  max_slots: z.number().int().min(1).max(20).default(3).describe("Positions held at once, one per slot."),
  leverage: z.number().positive().default(10).describe("Leverage set on each entry; ROE is measured at it."),
  margin_per_slot: z
    .number()
    .min(0)
    .default(0)
    .describe("USD margin per entry (notional = margin × leverage); 0 = total_budget / max_slots."),
  scanner_score_threshold: z
    .number()
    .default(170)
    .describe("Scanner opportunities enter only at or above this final score."),
  movers_immediate_auto_entry: z
    .boolean()
    .default(true)
    .describe("Enter IMMEDIATE_MOVER signals at once (first priority) instead of waiting for a threshold."),
  movers_immediate_min_confidence: z
    .number()
    .default(75)
    .describe("Confidence an IMMEDIATE_MOVER still needs to auto-enter (an erratic, halved one does not)."),
  movers_confidence_threshold: z
    .number()
    .default(70)
    .describe("Other movers signals enter at or above this confidence."),
  smart_money_confidence_threshold: z
    .number()
    .default(60)
    .describe("Smart-money signals enter at or above this confidence."),
  conviction_collapse_minutes: z
    .number()
    .positive()
    .default(30)
    .describe("A losing slot whose entry signal has been gone this long is closed."),
  stagnation_minutes: z
    .number()
    .positive()
    .default(60)
    .describe("A slot at or above stagnation_min_roe that made no new ROE high for this long takes profit."),
  stagnation_min_roe: z.number().default(3).describe("ROE % from which the stagnation take-profit applies."),
  max_negative_roe: z
    .number()
    .max(0)
    .default(-5)
    .describe("Hard stop: a slot at or below this ROE % is closed."),
  daily_loss_limit: z
    .number()
    .positive()
    .default(500)
    .describe(
      "USD; today's realized plus open unrealized PnL at or below −limit closes everything and stops entries until the next UTC day.",
    ),
  max_same_direction: z
    .number()
    .int()
    .min(1)
    .default(2)
    .describe("At most this many slots long (and as many short) at once."),
  max_correlated: z
    .number()
    .int()
    .min(1)
    .default(2)
    .describe(
      "At most this many slots in one correlation group (large caps, L2s, alt L1s, DeFi, memes, AI).",
    ),
  dsl_preset: z
    .enum(DSL_PRESET_NAMES as [string, ...string[]])
    .default("tight")
    .describe("DSL trailing-stop preset guarding every slot (`hl dsl presets`)."),
  dsl_leverage_override: z
    .number()
    .positive()
    .nullable()
    .default(null)
    .describe("Leverage the DSL measures ROE at; null = the slot's own."),
  dsl_breach_interval_ms: z
    .number()
    .int()
    .min(0)
    .default(10_000)
    .describe("At most one DSL floor breach is counted per this many ms."),
  tick_interval_s: z
    .number()
    .positive()
    .default(60)
    .describe("Seconds between ticks (flag --tick, WOLF_TICK)."),
  scanner_interval_ticks: z
    .number()
    .int()
    .min(1)
    .default(15)
    .describe("The scanner runs every this many ticks."),
  reconcile_interval_ticks: z
    .number()
    .int()
    .min(1)
    .default(5)
    .describe("Slots are checked against the exchange's positions every this many ticks."),
  review_interval_ticks: z
    .number()
    .int()
    .min(1)
    .default(240)
    .describe("HOWL and the judge review (and retune within bounds) every this many ticks."),
  review_hour_utc: z
    .number()
    .int()
    .min(0)
    .max(23)
    .default(4)
    .describe("…and once a day, at the first tick from this UTC hour."),
  entry_slippage: z
    .number()
    .positive()
    .max(0.05)
    .default(0.005)
    .describe("Entries are IOC at most this fraction worse than the mid."),
  exit_slippage: z
    .number()
    .positive()
    .max(0.1)
    .default(0.01)
    .describe("Exits are reduce-only IOC at most this fraction worse than the mid."),
  candle_refresh_s: z
    .number()
    .min(0)
    .default(300)
    .describe(
      "Movers' forming 4h bar is read again after this many seconds or a quarter of its bar, whichever is longer (0: every pass); closed bars are read once (docs/wolf.md, Scan cost).",
    ),
  min_order_usd: z
    .number()
    .min(0)
    .default(10)
    .describe("Exchange minimum order value (USD); smaller entries are skipped."),
  closed_history_size: z
    .number()
    .int()
    .min(5)
    .default(50)
    .describe("Closed slots kept in state.json's closed_slots."),
  smart_money_enabled: z.boolean().default(false).describe("Follow the wallets in smart_money_addresses."),
  smart_money_addresses: z.array(z.string()).default([]).describe("Wallets whose new positions are signals."),
  smart_money_min_position_usd: z
    .number()
    .default(10_000)
    .describe("A followed wallet's position counts from this notional (USD)."),
  smart_money_conviction_threshold: z
    .number()
    .int()
    .min(1)
    .default(2)
    .describe("Wallets on the same side that make a HIGH_CONVICTION signal."),
  smart_money_poll_interval_ticks: z
    .number()
    .int()
    .min(1)
    .default(5)
    .describe("Followed wallets are read every this many ticks."),
  excluded_instruments: z
    .array(z.string())
    .default([])
    .describe('Instruments WOLF never enters (e.g. "DOGE-PERP").'),
  scanner_preset: z.string().default("default").describe("Scanner preset (`hl scanner presets`)."),
  scanner_min_volume_24h: z
    .number()
    .min(0)
    .nullable()
    .default(null)
    .describe("Scanner's 24 h USD volume floor; null = the preset's."),
  movers_preset: z.string().default("default").describe("Movers preset (`hl movers presets`)."),
  movers_min_volume_24h: z
    .number()
    .min(0)
    .nullable()
    .default(null)
    .describe("Movers' 24 h USD volume floor; null = the preset's."),
  backstop_enabled: z
    .boolean()
    .default(true)
    .describe("Keep a reduce-only stop-market order resting on the exchange for every open slot."),
  backstop_margin_pct: z
    .number()
    .min(0)
    .max(20)
    .default(0.5)
    .describe(
      "Percent of price the exchange stop rests beyond the tighter of the hard stop and the DSL floor (the client acts first).",
    ),
  backstop_min_move_ticks: z
    .number()
    .int()
    .min(1)
    .default(10)
    .describe("The exchange stop follows the floor only once it would move at least this many price ticks."),
  backstop_min_interval_s: z
    .number()
    .min(1)
    .default(60)
    .describe(
      "…and at most once per this many seconds per slot (one modify = 1 weight: ≤ 3600/this per hour).",
    ),
});

export type WolfConfig = z.output<typeof wolfConfigSchema>;
export type WolfConfigInput = z.input<typeof wolfConfigSchema>;

const WOLF_PRESETS = {
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
  // Sized for the sim's $10,000 paper wallet (what `hl up` runs): $3,000 of margin over 3 slots at 3x,
  // $9,000 of notional in all, so the whole book is worth less than the wallet; the hard stop is a 5 %
  // adverse move and a day may lose 3 % of the wallet.
  paper_10k: {
    total_budget: 3000,
    max_slots: 3,
    leverage: 3,
    max_negative_roe: -15,
    daily_loss_limit: 300,
  },
} as const satisfies Record<string, WolfConfigInput>;

type WolfPresetName = keyof typeof WOLF_PRESETS;
export const WOLF_PRESET_NAMES = Object.keys(WOLF_PRESETS) as WolfPresetName[];

interface WolfOverrides {
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
  // Strict: a misspelt key must not be ignored while the setting it meant silently keeps its default.
  const r = wolfConfigSchema.strict().safeParse(merged);
  if (!r.success) {
    const issue = r.error.issues[0];
    if (issue?.code === "unrecognized_keys")
      throw new UserError(
        `unknown WOLF config key${issue.keys.length > 1 ? "s" : ""}: ${issue.keys.join(", ")}`,
      );
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
const CORRELATION_GROUPS: Record<string, readonly string[]> = {
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
