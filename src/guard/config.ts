import { z } from "zod";
import { UserError } from "../core/errors.ts";

export type Direction = "long" | "short";

/** One profit-locking tier: once ROE reaches `trigger_pct`, the floor never drops below `lock_pct` ROE. */
const tierSchema = z.object({
  trigger_pct: z.number().positive(),
  lock_pct: z.number(),
  retrace: z.number().positive().lt(1).optional(),
  max_breaches: z.number().int().min(1).optional(),
});

export const dslConfigSchema = z
  .object({
    direction: z.enum(["long", "short"]).default("long"),
    leverage: z.number().positive().default(10),
    phase1_retrace: z.number().positive().lt(1).default(0.03),
    phase1_max_breaches: z.number().int().min(1).default(3),
    /** A price; 0 disables it. */
    phase1_absolute_floor: z.number().min(0).default(0),
    phase2_retrace: z.number().positive().lt(1).default(0.015),
    phase2_max_breaches: z.number().int().min(1).default(2),
    breach_decay_mode: z.enum(["hard", "soft"]).default("hard"),
    tiers: z.array(tierSchema).default([]),
    stagnation_enabled: z.boolean().default(false),
    stagnation_min_roe: z.number().default(8),
    stagnation_timeout_ms: z.number().int().positive().default(3_600_000),
    /**
     * The guard sees every streamed price, not one price a minute: while the price stays past the
     * floor, one more breach is counted per interval (the first at once), so "3 breaches" still means
     * "past the floor for a while", not "three updates in one second".
     */
    breach_interval_ms: z.number().int().min(0).default(10_000),
  })
  .superRefine((c, ctx) => {
    c.tiers.forEach((t, i) => {
      if (t.lock_pct >= t.trigger_pct) {
        ctx.addIssue({ code: "custom", path: ["tiers", i], message: "lock_pct must be below trigger_pct" });
      }
      const prev = c.tiers[i - 1];
      if (prev && (t.trigger_pct <= prev.trigger_pct || t.lock_pct < prev.lock_pct)) {
        ctx.addIssue({
          code: "custom",
          path: ["tiers", i],
          message: "tiers must ascend in trigger and lock",
        });
      }
    });
  });

export type DslConfig = z.output<typeof dslConfigSchema>;
export type DslConfigInput = z.input<typeof dslConfigSchema>;

/** Parse and validate a DSL config; unusable tiers or leverage are refused up front. */
export function parseDslConfig(input: unknown): DslConfig {
  const r = dslConfigSchema.safeParse(input);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new UserError(`invalid DSL config at ${issue?.path.join(".") || "(root)"}: ${issue?.message}`);
  }
  return r.data;
}

export const DSL_PRESETS = {
  moderate: {
    phase1_retrace: 0.03,
    phase1_max_breaches: 3,
    phase2_retrace: 0.015,
    phase2_max_breaches: 2,
    breach_decay_mode: "hard",
    stagnation_enabled: false,
    tiers: [
      { trigger_pct: 10, lock_pct: 5 },
      { trigger_pct: 20, lock_pct: 14 },
      { trigger_pct: 30, lock_pct: 22, retrace: 0.012 },
      { trigger_pct: 50, lock_pct: 40, retrace: 0.01 },
      { trigger_pct: 75, lock_pct: 60, retrace: 0.008 },
      { trigger_pct: 100, lock_pct: 80, retrace: 0.006 },
    ],
  },
  tight: {
    phase1_retrace: 0.05,
    phase1_max_breaches: 3,
    phase2_retrace: 0.015,
    phase2_max_breaches: 2,
    breach_decay_mode: "hard",
    stagnation_enabled: true,
    stagnation_min_roe: 8,
    stagnation_timeout_ms: 3_600_000,
    tiers: [
      { trigger_pct: 10, lock_pct: 5, max_breaches: 3 },
      { trigger_pct: 20, lock_pct: 13, retrace: 0.012, max_breaches: 2 },
      { trigger_pct: 40, lock_pct: 30, retrace: 0.01, max_breaches: 2 },
      { trigger_pct: 75, lock_pct: 64, retrace: 0.006, max_breaches: 1 },
    ],
  },
} as const satisfies Record<string, DslConfigInput>;

type DslPresetName = keyof typeof DSL_PRESETS;
export const DSL_PRESET_NAMES = Object.keys(DSL_PRESETS) as DslPresetName[];

/** A preset's config with the position's direction and leverage (and any overrides) applied. */
export function dslConfigFromPreset(
  name: string,
  overrides: Partial<DslConfigInput> & { direction: Direction; leverage: number },
): DslConfig {
  if (!(name in DSL_PRESETS)) {
    throw new UserError(`Unknown DSL preset '${name}'. Available: ${DSL_PRESET_NAMES.join(", ")}`);
  }
  const preset = DSL_PRESETS[name as DslPresetName];
  return parseDslConfig({ ...preset, tiers: preset.tiers.map((t) => ({ ...t })), ...overrides });
}
