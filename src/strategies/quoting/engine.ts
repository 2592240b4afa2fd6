import { z } from "zod";
import type { MarketSnapshot } from "../sdk.ts";
import { BPS, clamp, logReturns, pushWindow, stdev } from "../util.ts";

/**
 * The quoting engine shared by engine_mm, regime_mm, liquidation_mm and funding_arb: composite fair
 * value, volatility-binned dynamic half-spread, inventory skew and a multi-level ladder. Pure: every
 * call takes the previous state and returns the next.
 *
 * Fair value is a weighted average of mid, an external reference and the microprice, divided by the
 * sum of those weights, so it always sits at a price level (the predecessor added an unused inventory
 * weight and quoted 80 % of mid).
 */
export const quotingParams = z.object({
  base_size: z
    .number()
    .positive()
    .default(1)
    .describe(
      "Quote size per side at ladder level 0, base units, before the inventory size skew (regime_mm scales it by its regime: ×1.5 low, ×1 normal, ×0.5 high, ×0.2 extreme volatility).",
    ),
  num_levels: z
    .number()
    .int()
    .min(1)
    .max(10)
    .default(3)
    .describe(
      "Ladder levels quoted per side, level i sitting i·delta_bps further from fair value than level 0.",
    ),
  delta_bps: z
    .number()
    .min(0)
    .default(1.5)
    .describe("Extra distance of each successive ladder level from fair value, bps of mid."),
  lam: z
    .number()
    .min(0)
    .default(0.5)
    .describe(
      "Size decay per ladder level: level i quotes base_size·e^(−lam·i), floored at 10 % of base_size.",
    ),
  min_spread_bps: z
    .number()
    .positive()
    .default(2)
    .describe("Lower bound of the level-0 full spread, bps of mid."),
  max_spread_bps: z
    .number()
    .positive()
    .default(50)
    .describe(
      "Upper bound of the level-0 full spread, bps of mid (liquidation_mm's cascade multiplier applies on top); half of it also caps the inventory skew of fair value.",
    ),
  h_fee_bps: z
    .number()
    .min(0)
    .default(1)
    .describe(
      "Fee component of the half-spread, bps of mid: half-spread = (h_fee_bps bps of mid + vol_scale·σ) × √(volatility-regime multiplier 1/1.5/2.5/5) × drawdown multiplier (1/1.5/2), then clamped to the spread bounds.",
    ),
  vol_scale: z
    .number()
    .min(0)
    .default(1)
    .describe(
      "Multiplier on σ, the per-tick standard deviation of mid's log returns in price units, in the half-spread.",
    ),
  w_mid: z
    .number()
    .min(0)
    .default(0.5)
    .describe(
      "Weight of mid in fair value = (w_mid·mid + w_micro·microprice + w_external·external) / (w_mid + w_micro + w_external); fair value is mid when all three are 0.",
    ),
  w_micro: z
    .number()
    .min(0)
    .default(0.3)
    .describe(
      "Weight in fair value of the microprice, the top-of-book price weighted by the opposite side's size (mid when the book is one-sided).",
    ),
  w_external: z
    .number()
    .min(0)
    .default(0)
    .describe(
      "Weight of the external reference price in fair value; engine_mm, regime_mm and liquidation_mm have no external reference and put mid in its place, so there it only adds weight to mid.",
    ),
  k_inv: z
    .number()
    .min(0)
    .default(0.5)
    .describe(
      "Fair-value skew against inventory: fair value is lowered by k_inv·σ·(position / inv_limit), i.e. k_inv per-tick σ (price units) at |position| = inv_limit, capped at half of max_spread_bps.",
    ),
  inv_limit: z
    .number()
    .positive()
    .default(10)
    .describe(
      "Net position limit, base units: position / inv_limit drives both skews, at |position| ≥ inv_limit only the unwinding side is quoted, and the adding side is trimmed so the position cannot pass it.",
    ),
  size_skew: z
    .number()
    .min(0)
    .max(1)
    .default(0.3)
    .describe(
      "Size skew against inventory, fraction: bid sizes × (1 − size_skew·u) and ask sizes × (1 + size_skew·u), u = position / inv_limit clamped to [−1, 1].",
    ),
  vol_window: z
    .number()
    .int()
    .min(4)
    .default(30)
    .describe(
      "Per-tick log returns of mid (from the last vol_window + 1 mids) behind σ and the volatility regime (annualised σ < 15 % low, < 40 % normal, < 80 % high, else extreme; 30 % assumed until 3 returns exist).",
    ),
});
export type QuotingParams = z.infer<typeof quotingParams>;

export type VolBin = "I_low" | "II_normal" | "III_high" | "IV_extreme";
const BINS: { bin: VolBin; upTo: number; mult: number }[] = [
  { bin: "I_low", upTo: 0.15, mult: 1.0 },
  { bin: "II_normal", upTo: 0.4, mult: 1.5 },
  { bin: "III_high", upTo: 0.8, mult: 2.5 },
  { bin: "IV_extreme", upTo: Number.POSITIVE_INFINITY, mult: 5.0 },
];
const BIN_ORDER: VolBin[] = ["I_low", "II_normal", "III_high", "IV_extreme"];
/** Rounds a lower bin must be seen in a row before the classifier steps down. */
const STEP_DOWN_ROUNDS = 3;
/** Annual vol assumed before enough returns exist (a "normal" market, whatever the tick interval). */
const FALLBACK_SIGMA_ANNUAL = 0.3;
const YEAR_S = 365 * 24 * 3600;

export interface VolState {
  mids: number[];
  /** Exchange time of the previous sample, ms (0 before the first). */
  lastTs: number;
  bin: VolBin;
  pendingBin: VolBin | null;
  pendingCount: number;
}

export function initVolState(): VolState {
  return { mids: [], lastTs: 0, bin: "I_low", pendingBin: null, pendingCount: 0 };
}

interface VolReading {
  sigmaLog: number;
  sigmaPrice: number;
  /** Annualised with the real tick interval. */
  sigmaAnnual: number;
  bin: VolBin;
  mVol: number;
}

function binOf(sigmaAnnual: number): VolBin {
  return (BINS.find((b) => sigmaAnnual < b.upTo) ?? BINS[3]!).bin;
}

function binMult(bin: VolBin): number {
  return BINS.find((b) => b.bin === bin)!.mult;
}

/**
 * Updates the rolling volatility and the hysteresis classifier (up at once, down after 3 rounds).
 * Per-round sigma is annualised with the real time between samples (exchange timestamps), falling
 * back to the configured tick interval for the first sample.
 */
export function stepVol(
  state: VolState,
  mid: number,
  timestampMs: number,
  tickSeconds: number,
  window: number,
): { vol: VolReading; state: VolState } {
  const mids = pushWindow(state.mids, mid, window + 1);
  const rets = logReturns(mids);
  const dt =
    state.lastTs > 0 && timestampMs > state.lastTs ? (timestampMs - state.lastTs) / 1000 : tickSeconds;
  const perYear = Math.sqrt(YEAR_S / Math.max(dt, 1e-3));
  const sigmaLog = rets.length < 3 ? FALLBACK_SIGMA_ANNUAL / perYear : Math.max(stdev(rets), 1e-9);
  const sigmaAnnual = sigmaLog * perYear;
  const target = binOf(sigmaAnnual);
  let { bin, pendingBin, pendingCount } = state;
  if (BIN_ORDER.indexOf(target) > BIN_ORDER.indexOf(bin)) {
    bin = target;
    pendingBin = null;
    pendingCount = 0;
  } else if (target !== bin) {
    pendingCount = pendingBin === target ? pendingCount + 1 : 1;
    pendingBin = target;
    if (pendingCount >= STEP_DOWN_ROUNDS) {
      bin = target;
      pendingBin = null;
      pendingCount = 0;
    }
  } else {
    pendingBin = null;
    pendingCount = 0;
  }
  return {
    vol: { sigmaLog, sigmaPrice: sigmaLog * mid, sigmaAnnual, bin, mVol: binMult(bin) },
    state: { mids, lastTs: timestampMs, bin, pendingBin, pendingCount },
  };
}

/** Drawdown bands (percent of capital): spread multiplier, and reduce-only from the orange band up. */
function drawdownBand(ddPct: number): { name: string; mult: number; reduceOnly: boolean } {
  if (ddPct < 0.5) return { name: "green", mult: 1, reduceOnly: false };
  if (ddPct < 1.5) return { name: "yellow", mult: 1.5, reduceOnly: false };
  if (ddPct < 2.5) return { name: "orange", mult: 2, reduceOnly: true };
  return { name: "red", mult: 2, reduceOnly: true };
}

/** Size-weighted microprice from the top of book; mid when the book is one-sided. */
function microprice(s: MarketSnapshot): number {
  const b = s.book.bids[0];
  const a = s.book.asks[0];
  if (!b || !a || b.sz + a.sz <= 0 || a.px <= b.px) return s.mid;
  return (b.px * a.sz + a.px * b.sz) / (b.sz + a.sz);
}

export interface QuoteLevel {
  level: number;
  bid: number;
  ask: number;
  bidSize: number;
  askSize: number;
}

interface QuoteInput {
  snapshot: MarketSnapshot;
  inventory: number;
  drawdownPct: number;
  vol: VolReading;
  /** An external fair-price reference (0 = none → mid is used in its place). */
  externalRef?: number;
  /** Extra multiplier on the half-spread (liquidation cascades). */
  spreadMult?: number;
}

interface QuoteResult {
  fvRaw: number;
  fvSkewed: number;
  halfSpread: number;
  levels: QuoteLevel[];
  /** Inventory at its limit or drawdown in the orange band or worse: only unwind. */
  reduceOnly: boolean;
  ddBand: string;
}

export function buildQuotes(p: QuotingParams, input: QuoteInput): QuoteResult {
  const s = input.snapshot;
  const mid = s.mid;
  const ext = input.externalRef && input.externalRef > 0 ? input.externalRef : mid;
  const wSum = p.w_mid + p.w_micro + p.w_external;
  const fvRaw = wSum > 0 ? (p.w_mid * mid + p.w_micro * microprice(s) + p.w_external * ext) / wSum : mid;
  const { sigmaPrice } = input.vol;
  const util = clamp(input.inventory / p.inv_limit, -1, 1);
  const maxHalf = (mid * p.max_spread_bps) / BPS / 2;
  const skew = clamp(p.k_inv * util * sigmaPrice, -maxHalf, maxHalf);
  const fvSkewed = fvRaw - skew;
  const dd = drawdownBand(input.drawdownPct);
  let half = (p.h_fee_bps * mid) / BPS + sigmaPrice * p.vol_scale;
  half *= Math.sqrt(input.vol.mVol) * dd.mult;
  half = clamp(half, (mid * p.min_spread_bps) / BPS / 2, maxHalf);
  half *= input.spreadMult ?? 1;
  const bidMult = Math.max(0, 1 - p.size_skew * util);
  const askMult = Math.max(0, 1 + p.size_skew * util);
  const delta = (p.delta_bps * mid) / BPS;
  const levels: QuoteLevel[] = [];
  for (let i = 0; i < p.num_levels; i++) {
    const offset = half + i * delta;
    const base = Math.max(p.base_size * Math.exp(-p.lam * i), 0.1 * p.base_size);
    levels.push({
      level: i,
      bid: fvSkewed - offset,
      ask: fvSkewed + offset,
      bidSize: base * bidMult,
      askSize: base * askMult,
    });
  }
  return {
    fvRaw,
    fvSkewed,
    halfSpread: half,
    levels,
    reduceOnly: Math.abs(input.inventory) >= p.inv_limit || dd.reduceOnly,
    ddBand: dd.name,
  };
}
