import type { MarketParams } from "./market-params.ts";
import type { Rng } from "./prng.ts";

/**
 * One market's price path: geometric Brownian motion with a slowly wandering trend, calm/volatile
 * regimes that switch as a Markov chain, Poisson jumps, shocks correlated with BTC's, and a
 * mean-reverting premium of the perp over its oracle (what drives funding). Pure: state in, state out.
 */
export interface PriceState {
  px: number;
  regime: "calm" | "volatile";
  /** Drift of the log price, per day. */
  trendPerDay: number;
  /** Perp premium over the oracle (fraction). */
  premium: number;
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
/** Trend: mean reversion per day and its noise (per sqrt day). */
const TREND_REVERSION_PER_DAY = 0.5;
const TREND_VOL = 0.04;
/** Premium: mean reversion per hour. */
const PREMIUM_REVERSION_PER_HOUR = 2;
/** Premium (fraction) a strong trend pushes the perp to. */
const TREND_PREMIUM = 0.0008;

export function initialPriceState(px: number): PriceState {
  return { px, regime: "calm", trendPerDay: 0, premium: 0.00005 };
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

  const switchHazard = s.regime === "calm" ? TO_VOLATILE_PER_HOUR : TO_CALM_PER_HOUR;
  const regime = rng.chance(1 - Math.exp(-switchHazard * dtHours))
    ? s.regime === "calm"
      ? "volatile"
      : "calm"
    : s.regime;
  const regimeMult = regime === "volatile" ? VOLATILE_MULTIPLIER : 1;

  const trendPerDay =
    s.trendPerDay -
    TREND_REVERSION_PER_DAY * s.trendPerDay * dtDays +
    TREND_VOL * Math.sqrt(dtDays) * rng.normal();

  const rho = Math.max(-1, Math.min(1, p.btcCorrelation));
  const shock = rho * btcShock + Math.sqrt(1 - rho * rho) * rng.normal();
  const sigma = p.volAnnual * regimeMult;
  let logReturn =
    trendPerDay * dtDays +
    extraDriftPerHour * dtHours -
    0.5 * sigma * sigma * dtYears +
    sigma * Math.sqrt(dtYears) * shock;
  if (rng.chance(1 - Math.exp(-p.jumpsPerDay * regimeMult * dtDays))) logReturn += p.jumpSize * rng.normal();
  // A hard bound per step keeps a freak draw from wiping a market out.
  logReturn = Math.max(-0.25, Math.min(0.25, logReturn));

  const k = Math.min(1, PREMIUM_REVERSION_PER_HOUR * dtHours);
  // Longs crowd into uptrends and shorts into downtrends: the premium leans with the trend, enough
  // in a strong one to lift funding off its baseline.
  const lean = Math.tanh((trendPerDay + extraDriftPerHour * 24) * 25) * (regime === "volatile" ? 1.5 : 1);
  const premiumTarget = p.premiumMean + TREND_PREMIUM * lean;
  const premium =
    s.premium +
    k * (premiumTarget - s.premium) +
    p.premiumVol * regimeMult * Math.sqrt(dtHours) * rng.normal();

  return {
    px: s.px * Math.exp(logReturn),
    regime,
    trendPerDay,
    premium: Math.max(-0.01, Math.min(0.01, premium)),
  };
}
