import { z } from "zod";
import { UserError } from "../core/errors.ts";

const MOVER_TYPES = [
  "IMMEDIATE_MOVER",
  "OI_VOLUME_SURGE",
  "VOLUME_SURGE",
  "OI_BREAKOUT",
  "PRICE_BREAKOUT",
  "FUNDING_FLIP",
] as const;
export type MoverType = (typeof MOVER_TYPES)[number];

const moversConfigSchema = z.object({
  oi_delta_immediate_pct: z.number().default(15),
  oi_delta_breakout_pct: z.number().default(8),
  /** The OI baseline is the mean over past scans within this window (time, not a scan count). */
  oi_baseline_window_ms: z.number().int().positive().default(360_000),
  volume_surge_ratio: z.number().default(3),
  volume_surge_immediate: z.number().default(5),
  volume_min_24h: z.number().min(0).default(500_000),
  /** Hourly funding: a sign flip must move at least this much (0.0002 per 8 h, scaled to 1 h). */
  funding_flip_threshold: z.number().default(0.000025),
  funding_acceleration_pct: z.number().default(50),
  /** Acceleration must also move funding by at least this much per hour (≈ 11 % a year). */
  funding_min_shift: z.number().default(0.0000125),
  breakout_lookback_bars: z.number().int().min(2).default(24),
  breakout_exceed_pct: z.number().default(1.5),
  erratic_max_reversals: z.number().int().default(5),
  erratic_window: z.number().int().min(3).default(10),
  min_scans_for_signal: z.number().int().min(1).default(2),
  signal_weights: z.record(z.enum(MOVER_TYPES), z.number()).default({
    IMMEDIATE_MOVER: 100,
    OI_VOLUME_SURGE: 85,
    VOLUME_SURGE: 70,
    OI_BREAKOUT: 60,
    PRICE_BREAKOUT: 55,
    FUNDING_FLIP: 50,
  }),
  scan_history_size: z.number().int().min(1).default(30),
  /** Candles are fetched for at most this many qualifying assets, largest volume first. */
  max_candle_assets: z.number().int().min(0).default(30),
});

export type MoversConfig = z.output<typeof moversConfigSchema>;
type MoversConfigInput = z.input<typeof moversConfigSchema>;

export const MOVERS_PRESETS: Record<string, MoversConfigInput> = {
  default: {},
  sensitive: {
    oi_delta_immediate_pct: 10,
    oi_delta_breakout_pct: 5,
    volume_surge_ratio: 2.0,
    volume_min_24h: 200_000,
  },
};

/** Preset, then only the overrides actually given (flag defaults never clobber a preset). */
export function moversConfig(preset = "default", overrides: MoversConfigInput = {}): MoversConfig {
  const base = MOVERS_PRESETS[preset];
  if (!base)
    throw new UserError(
      `Unknown movers preset '${preset}'. Available: ${Object.keys(MOVERS_PRESETS).join(", ")}`,
    );
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  return moversConfigSchema.parse({ ...base, ...defined });
}
