import { UserError } from "../core/errors.ts";

/**
 * Hyperliquid's perpetuals fee tiers (by 14-day weighted volume), before staking discounts and
 * referral rebates: tier 0 ≤ $5M, 1 > $5M, 2 > $25M, 3 > $100M, 4 > $500M, 5 > $2B, 6 > $7B.
 * Rates are fractions of notional, as decimal strings.
 */
export interface FeeRates {
  tier: number;
  taker: string;
  maker: string;
}

const PERP_TIERS: readonly FeeRates[] = [
  { tier: 0, taker: "0.00045", maker: "0.00015" },
  { tier: 1, taker: "0.0004", maker: "0.00012" },
  { tier: 2, taker: "0.00035", maker: "0.00008" },
  { tier: 3, taker: "0.0003", maker: "0.00004" },
  { tier: 4, taker: "0.00028", maker: "0" },
  { tier: 5, taker: "0.00026", maker: "0" },
  { tier: 6, taker: "0.00024", maker: "0" },
];

export function feeRates(tier: number): FeeRates {
  const rates = PERP_TIERS[tier];
  if (!Number.isInteger(tier) || !rates)
    throw new UserError(`--fee-tier must be an integer from 0 to ${PERP_TIERS.length - 1}, got ${tier}`);
  return rates;
}
