import { D, type Dec, type DecLike, dec } from "../../core/decimal.ts";

/**
 * SWP oracle methodology: a cumulative excess-funding index on a reference hourly funding rate.
 *
 *   P = B + S·L·Σ_h (f_h − K_h)
 *
 * f_h is the realized hourly funding rate of hour h (a fraction, never the 8-hour convention), K_h
 * the fixed leg in force during hour h. After hour h settles, K ← (1−β)·K + β·f_h (from K₀).
 * Inside an unsettled hour the pending term is elapsed_fraction·(predicted − K). Publication clamps
 * each move to ±1% of the previously published price and quantizes to 6 decimals (half-even); the
 * raw index itself is never clamped. Pure: no clock, no I/O.
 */

export const HOUR_MS = 3_600_000;
const PRICE_DECIMALS = 6;
/** Largest published move, as a fraction of the previously published price. */
const MAX_MOVE = dec("0.01");

export interface OracleProfile {
  /** B: the price at inception. */
  baseline: Dec;
  /** S: price units per unit of cumulative excess rate, before leverage. */
  scale: Dec;
  /** L */
  leverage: Dec;
  /** β: weight of the newest realized rate in the fixed-leg EMA. */
  beta: Dec;
  /** K₀: the fixed leg at inception. */
  k0: Dec;
}

interface ProfileInput {
  baseline: DecLike;
  scale: DecLike;
  leverage: DecLike;
  beta: DecLike;
  k0: DecLike;
}

export function profile(p: ProfileInput): OracleProfile {
  return {
    baseline: dec(p.baseline),
    scale: dec(p.scale),
    leverage: dec(p.leverage),
    beta: dec(p.beta),
    k0: dec(p.k0),
  };
}

/** The settled part of the index. */
export interface IndexState {
  /** Σ (f_h − K_h) over settled hours. */
  cumulative: Dec;
  /** Fixed leg in force for the next unsettled hour. */
  k: Dec;
  /** End (ms) of the last settled hour; the inception time before any hour settles. */
  settledThroughMs: number;
}

export function inception(p: OracleProfile, inceptionMs: number): IndexState {
  return { cumulative: new D(0), k: p.k0, settledThroughMs: inceptionMs };
}

/** Settle one hour ending at `hourEndMs` with its realized rate: add its excess, then move K. */
export function settleHour(p: OracleProfile, s: IndexState, hourEndMs: number, rate: DecLike): IndexState {
  const f = dec(rate);
  return {
    cumulative: s.cumulative.plus(f.minus(s.k)),
    k: new D(1).minus(p.beta).times(s.k).plus(p.beta.times(f)),
    settledThroughMs: hourEndMs,
  };
}

/**
 * Excess accrued since the last settlement, nowcast from the live predicted rate. The elapsed
 * fraction counts from the end of the last settled hour, so an hour whose realized rate is late
 * keeps accruing until the true-up replaces it.
 */
export function pendingExcess(s: IndexState, predictedRate: DecLike, nowMs: number): Dec {
  const elapsed = Math.max(0, nowMs - s.settledThroughMs);
  return new D(elapsed).div(HOUR_MS).times(dec(predictedRate).minus(s.k));
}

/** B + S·L·(cumulative + pending), unclamped and unquantized. */
export function rawPrice(p: OracleProfile, s: IndexState, pending: DecLike = 0): Dec {
  return p.baseline.plus(p.scale.times(p.leverage).times(s.cumulative.plus(dec(pending))));
}

/** The published price: `raw` clamped to ±1% of `previous`, quantized to 6 decimals half-even. */
export function publish(previous: DecLike, raw: DecLike): Dec {
  const prev = dec(previous);
  const band = prev.abs().times(MAX_MOVE);
  const clamped = D.min(D.max(dec(raw), prev.minus(band)), prev.plus(band));
  return clamped.toDecimalPlaces(PRICE_DECIMALS, D.ROUND_HALF_EVEN);
}

/** Wire form of a published price: always 6 decimals. */
export function priceString(px: Dec): string {
  return px.toFixed(PRICE_DECIMALS, D.ROUND_HALF_EVEN);
}

/** Fold settled hours (in time order) from inception: the replay a restart performs. */
export function replay(
  p: OracleProfile,
  inceptionMs: number,
  hours: Iterable<{ hourEndMs: number; rate: DecLike }>,
): IndexState {
  let s = inception(p, inceptionMs);
  for (const h of hours) if (h.hourEndMs > s.settledThroughMs) s = settleHour(p, s, h.hourEndMs, h.rate);
  return s;
}
