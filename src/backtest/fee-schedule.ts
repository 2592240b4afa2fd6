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

/**
 * The tier's rates with the user's own in place of either (a staking discount, a referral, another
 * venue's schedule): fractions of notional; a maker rate may be negative (a rebate).
 */
export function withCustomFees(base: FeeRates, custom: { maker?: string; taker?: string }): FeeRates {
  const rate = (raw: string | undefined, flag: string, min: number): string | undefined => {
    if (raw === undefined) return undefined;
    const x = Number(raw);
    if (raw.trim() === "" || !Number.isFinite(x) || x < min || x > 0.01)
      throw new UserError(`${flag} must be a fraction of notional from ${min} to 0.01, got "${raw}"`);
    return String(x);
  };
  const maker = rate(custom.maker, "--maker-fee", -0.001);
  const taker = rate(custom.taker, "--taker-fee", 0);
  return { tier: base.tier, maker: maker ?? base.maker, taker: taker ?? base.taker };
}

export function feeRates(tier: number): FeeRates {
  const rates = PERP_TIERS[tier];
  if (!Number.isInteger(tier) || !rates)
    throw new UserError(`--fee-tier must be an integer from 0 to ${PERP_TIERS.length - 1}, got ${tier}`);
  return rates;
}
