import type { MarketParams } from "./market-params.ts";
import type { Rng } from "./prng.ts";

/**
 * One market's price path: geometric Brownian motion with a slowly wandering trend, calm/volatile
 * regimes that switch as a Markov chain, Poisson jumps, shocks correlated with BTC's, and a
 * mean-reverting premium of the perp over its oracle (what drives funding) whose level follows a
 * crowding regime (longs crowded: positive funding; shorts crowded: negative). Rare hard days: price
 * gaps and liquidation cascades (a one-way slide with a volatility burst, heavy volume and open
 * interest flushed out). Pure: state in, state out.
 */
export interface PriceState {
  px: number;
  regime: "calm" | "volatile";
  /** Drift of the log price, per day. */
  trendPerDay: number;
  /** Perp premium over the oracle (fraction). */
  premium: number;
  /** Positioning of the crowd: 1 longs crowded, −1 shorts crowded, 0 balanced. */
  crowd: -1 | 0 | 1;
  /** Open interest held by the rest of the market, in coins. */
  oi: number;
  /** Sim ms left in a liquidation cascade (0 = none) and its direction. */
  cascadeMs: number;
  cascadeDir: 1 | -1;
}

/** A forced drift on one coin for a while: how tests and demos make a "mover" appear. */
export interface Scenario {
  coin: string;
  /** Extra log drift per hour, e.g. 0.02 for +2 %/h. */
  driftPerHour: number;
  untilMs: number;
}

const YEAR_MS = 365 * 24 * 3600 * 1000;
const DAY_MS = 24 * 3600 * 1000;
const HOUR_MS = 3600 * 1000;
const VOLATILE_MULTIPLIER = 2.5;
/** Regime switch hazards per hour. */
const TO_VOLATILE_PER_HOUR = 0.03;
const TO_CALM_PER_HOUR = 0.2;
/** Calm volatility is scaled down so calm and volatile spells together average volAnnual. */
const VOLATILE_SHARE = TO_VOLATILE_PER_HOUR / (TO_VOLATILE_PER_HOUR + TO_CALM_PER_HOUR);
const REGIME_BLEND = Math.sqrt(1 - VOLATILE_SHARE + VOLATILE_SHARE * VOLATILE_MULTIPLIER ** 2);
/** Trend: mean reversion per day and its noise (per sqrt day). */
const TREND_REVERSION_PER_DAY = 0.5;
const TREND_VOL = 0.008;
/** Premium: mean reversion per hour. */
const PREMIUM_REVERSION_PER_HOUR = 2;
/** Premium (fraction) a strong trend pushes the perp to. */
const TREND_PREMIUM = 0.0002;

/** Crowded regimes: switches per hour into one (from balanced) and back out of it. */
const TO_CROWDED_PER_HOUR = 0.1;
const TO_BALANCED_PER_HOUR = 0.1;
/**
 * Premium of a crowded perp: beyond the funding formula's clamp band (0.01 % ± 0.05 % on the 8-hour
 * basis), so funding leaves its baseline.
 */
const CROWD_PREMIUM = 0.0006;
/** Cascades per day per market, how long one lasts, its slide per hour and its volatility multiplier. */
const CASCADES_PER_DAY = 1 / 15;
const CASCADE_MS = [20 * 60_000, 70 * 60_000] as const;
const CASCADE_DRIFT_PER_HOUR = 0.07;
const CASCADE_VOL = 4;
/** Share of open interest a cascade flushes out per hour. */
const CASCADE_OI_FLUSH_PER_HOUR = 0.3;
/** Gaps (a sudden re-pricing) per day per market and their log size. */
const GAPS_PER_DAY = 1 / 25;
const GAP_SIZE = 0.06;
/** Open interest reverts to its usual level at this rate per day and wanders this much per √day. */
const OI_REVERSION_PER_DAY = 0.3;
const OI_VOL = 0.08;

export function initialPriceState(px: number, oi = 0): PriceState {
  return { px, regime: "calm", trendPerDay: 0, premium: 0.00005, crowd: 0, oi, cascadeMs: 0, cascadeDir: -1 };
}

/** How busy the market is now relative to its usual flow (volume multiplier). */
export function activity(s: PriceState): number {
  if (s.cascadeMs > 0) return 6;
  return s.regime === "volatile" ? 2 : 1;
}

/**
 * Advance one market by `dtMs`. `btcShock` is the standard normal shock BTC drew for this step
 * (shared so alts move with it); `extraDriftPerHour` is the sum of active scenarios on this coin.
 */
export function stepPrice(
  s: PriceState,
  p: MarketParams,
  dtMs: number,
  btcShock: number,
  rng: Rng,
  extraDriftPerHour = 0,
): PriceState {
  const dtYears = dtMs / YEAR_MS;
  const dtDays = dtMs / DAY_MS;
  const dtHours = dtMs / HOUR_MS;
  const q = stepOdds(dtMs);

  const regime = rng.chance(s.regime === "calm" ? q.toVolatile : q.toCalm)
    ? s.regime === "calm"
      ? "volatile"
      : "calm"
    : s.regime;
  const cascading = s.cascadeMs > 0;
  const regimeMult = (regime === "volatile" ? VOLATILE_MULTIPLIER : 1) * (cascading ? CASCADE_VOL : 1);

  const trendPerDay =
    s.trendPerDay - TREND_REVERSION_PER_DAY * s.trendPerDay * dtDays + TREND_VOL * q.sqrtDays * rng.normal();

  const rho = Math.max(-1, Math.min(1, p.btcCorrelation));
  const shock = rho * btcShock + Math.sqrt(1 - rho * rho) * rng.normal();
  const sigma = (p.volAnnual / REGIME_BLEND) * regimeMult;
  let logReturn =
    trendPerDay * dtDays +
    extraDriftPerHour * dtHours -
    0.5 * sigma * sigma * dtYears +
    sigma * q.sqrtYears * shock;
  if (rng.chance(1 - Math.exp(-p.jumpsPerDay * regimeMult * dtDays))) logReturn += p.jumpSize * rng.normal();
  // Gaps and cascades scale with how volatile the market is: BTC's are milder than an alt's.
  const hardness = p.volAnnual / 0.8;
  if (rng.chance(q.gap)) logReturn += GAP_SIZE * hardness * (1 + rng.next()) * sign(rng);
  if (cascading) logReturn += s.cascadeDir * CASCADE_DRIFT_PER_HOUR * hardness * dtHours;
  // A hard bound per step keeps a freak draw from wiping a market out.
  logReturn = Math.max(-0.25, Math.min(0.25, logReturn));

  const k = Math.min(1, PREMIUM_REVERSION_PER_HOUR * dtHours);
  // Longs crowd into uptrends and shorts into downtrends: the premium leans with the trend, enough
  // in a strong one to lift funding off its baseline.
  const lean = Math.tanh((trendPerDay + extraDriftPerHour * 24) * 25) * (regime === "volatile" ? 1.5 : 1);
  let crowd = s.crowd;
  if (rng.chance(s.crowd === 0 ? q.toCrowded : q.toBalanced)) {
    // The crowd piles in on the side of the trend more often than against it.
    crowd = s.crowd !== 0 ? 0 : rng.chance(0.5 + 0.3 * Math.tanh(trendPerDay * 25)) ? 1 : -1;
  }
  const premiumTarget = p.premiumMean + TREND_PREMIUM * lean + CROWD_PREMIUM * crowd;
  const premium =
    s.premium +
    k * (premiumTarget - s.premium) +
    p.premiumVol * Math.min(regimeMult, 1.5) * q.sqrtHours * rng.normal();

  let cascadeMs = Math.max(0, s.cascadeMs - dtMs);
  let cascadeDir = s.cascadeDir;
  if (!cascading && rng.chance(q.cascade)) {
    cascadeMs = CASCADE_MS[0] + rng.next() * (CASCADE_MS[1] - CASCADE_MS[0]);
    // Longs crowded into an uptrend get flushed downwards, and the other way round.
    cascadeDir = crowd > 0 ? -1 : crowd < 0 ? 1 : sign(rng);
  }
  const oiTarget = p.openInterestUsd / s.px;
  const oi =
    s.oi +
    OI_REVERSION_PER_DAY * (oiTarget - s.oi) * dtDays +
    OI_VOL * s.oi * q.sqrtDays * rng.normal() -
    (cascading ? CASCADE_OI_FLUSH_PER_HOUR * s.oi * dtHours : 0);

  return {
    px: s.px * Math.exp(logReturn),
    regime,
    trendPerDay,
    premium: Math.max(-0.01, Math.min(0.01, premium)),
    crowd,
    oi: Math.max(0, oi),
    cascadeMs,
    cascadeDir,
  };
}

interface StepOdds {
  toVolatile: number;
  toCalm: number;
  toCrowded: number;
  toBalanced: number;
  gap: number;
  cascade: number;
  sqrtYears: number;
  sqrtDays: number;
  sqrtHours: number;
}

/** Per-step probabilities and √dt terms: the same few step lengths recur, so each is computed once. */
const oddsByStep = new Map<number, StepOdds>();
function stepOdds(dtMs: number): StepOdds {
  let q = oddsByStep.get(dtMs);
  if (!q) {
    const hours = dtMs / HOUR_MS;
    const days = dtMs / DAY_MS;
    const p = (rate: number) => 1 - Math.exp(-rate);
    q = {
      toVolatile: p(TO_VOLATILE_PER_HOUR * hours),
      toCalm: p(TO_CALM_PER_HOUR * hours),
      toCrowded: p(TO_CROWDED_PER_HOUR * hours),
      toBalanced: p(TO_BALANCED_PER_HOUR * hours),
      gap: p(GAPS_PER_DAY * days),
      cascade: p(CASCADES_PER_DAY * days),
      sqrtYears: Math.sqrt(dtMs / YEAR_MS),
      sqrtDays: Math.sqrt(days),
      sqrtHours: Math.sqrt(hours),
    };
    if (oddsByStep.size < 64) oddsByStep.set(dtMs, q);
  }
  return q;
}

function sign(rng: Rng): 1 | -1 {
  return rng.chance(0.5) ? 1 : -1;
}
