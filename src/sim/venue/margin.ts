/**
 * Maintenance margin by margin tier, as Hyperliquid documents it (docs: Trading → Margin tiers):
 * maintenance = notional × rate(tier) − deduction(tier), with rate(tier) half the initial margin
 * rate at the tier's max leverage, and deduction(0) = 0, deduction(n) = deduction(n−1) +
 * lowerBound(n) × (rate(n) − rate(n−1)), so maintenance is continuous in the position's size.
 */
import type { MarginTier, MarketSpec } from "./markets.ts";
import { marginTiers } from "./markets.ts";

const MICRO = 1_000_000;

interface MaintenanceTier {
  /** Lower bound in micro-USDC. */
  from: number;
  /** Maintenance rate denominator: 2 × the tier's max leverage. */
  den: number;
  /** Deduction in micro-USDC (exact: bounds are whole dollars and leverages integers). */
  deduction: number;
}

/** What the tiers of a market follow from: its margin table, or else its max leverage (flat). */
export type MarginSpec = Pick<MarketSpec, "maxLeverage" | "marginTableId">;

const cache = new WeakMap<MarginSpec, MaintenanceTier[]>();

function maintenanceTiers(spec: MarginSpec): MaintenanceTier[] {
  let out = cache.get(spec);
  if (!out) {
    out = build(marginTiers(spec));
    cache.set(spec, out);
  }
  return out;
}

function build(tiers: readonly MarginTier[]): MaintenanceTier[] {
  const out: MaintenanceTier[] = [];
  let deduction = 0;
  for (let i = 0; i < tiers.length; i++) {
    const t = tiers[i]!;
    const from = t.lowerBound * MICRO;
    if (i > 0) {
      const prev = tiers[i - 1]!;
      // lowerBound × (1/(2·L_n) − 1/(2·L_{n−1})), rounded to the micro-USDC.
      deduction += Math.round(from / (2 * t.maxLeverage) - from / (2 * prev.maxLeverage));
    }
    out.push({ from, den: 2 * t.maxLeverage, deduction });
  }
  return out;
}

/** Maintenance margin (micro-USDC, rounded up) of a position worth `ntl` micro-USDC at mark. */
export function maintenanceMargin(spec: MarginSpec, ntl: number): number {
  const tiers = maintenanceTiers(spec);
  let t = tiers[0]!;
  for (let i = 1; i < tiers.length; i++) if (ntl >= tiers[i]!.from) t = tiers[i]!;
  return Math.max(0, Math.ceil(ntl / t.den) - t.deduction);
}
