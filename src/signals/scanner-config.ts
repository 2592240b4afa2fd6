import { z } from "zod";
import { UserError } from "../core/errors.ts";

const modifier = z.object({ LONG: z.number(), SHORT: z.number() });

const scannerConfigSchema = z.object({
  /** Stage-1 cut on 24 h notional volume (USD). */
  min_volume_24h: z.number().min(0).default(500_000),
  top_n_deep: z.number().int().min(1).default(20),
  score_threshold: z.number().default(150),
  pillar_weights: z
    .object({ market_structure: z.number(), technicals: z.number(), funding: z.number() })
    .default({ market_structure: 0.35, technicals: 0.4, funding: 0.25 }),
  macro_modifiers: z
    .object({ strong_up: modifier, up: modifier, neutral: modifier, down: modifier, strong_down: modifier })
    .default({
      strong_up: { LONG: 30, SHORT: -30 },
      up: { LONG: 15, SHORT: -15 },
      neutral: { LONG: 0, SHORT: 0 },
      down: { LONG: -15, SHORT: 15 },
      strong_down: { LONG: -30, SHORT: 30 },
    }),
  disqualify_thresholds: z
    .object({
      counter_trend_4h_strength: z.number(),
      extreme_rsi_long: z.number(),
      extreme_rsi_short: z.number(),
      volume_dying_ratio: z.number(),
      heavy_funding_annualized_pct: z.number(),
      btc_headwind_modifier: z.number(),
    })
    .default({
      counter_trend_4h_strength: 50,
      extreme_rsi_long: 80,
      extreme_rsi_short: 20,
      volume_dying_ratio: 0.5,
      heavy_funding_annualized_pct: 50,
      btc_headwind_modifier: -30,
    }),
  scan_history_size: z.number().int().min(1).default(12),
  lookback_4h_ms: z
    .number()
    .int()
    .positive()
    .default(14_400_000 * 50),
  lookback_1h_ms: z
    .number()
    .int()
    .positive()
    .default(3_600_000 * 48),
  lookback_15m_ms: z
    .number()
    .int()
    .positive()
    .default(900_000 * 48),
});

export type ScannerConfig = z.output<typeof scannerConfigSchema>;
type ScannerConfigInput = z.input<typeof scannerConfigSchema>;

export const SCANNER_PRESETS: Record<string, ScannerConfigInput> = {
  default: {},
  aggressive: { min_volume_24h: 100_000, top_n_deep: 30, score_threshold: 120 },
};

/**
 * Preset, then only the fields the user actually set (the predecessor overwrote a preset's values
 * with the flags' own defaults, so `--preset aggressive` did nothing).
 */
export function scannerConfig(preset = "default", overrides: ScannerConfigInput = {}): ScannerConfig {
  const base = SCANNER_PRESETS[preset];
  if (!base)
    throw new UserError(
      `Unknown scanner preset '${preset}'. Available: ${Object.keys(SCANNER_PRESETS).join(", ")}`,
    );
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  return scannerConfigSchema.parse({ ...base, ...defined });
}
