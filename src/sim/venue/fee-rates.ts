/**
 * The rates an account's fills are charged at on one perp market, by the docs' fee formula
 * (Hyperliquid docs, *Trading → Fees*, "Fee formula for developers"; docs/exchange-rules.md): the
 * account's own taker and maker rates as `userFees` reports them (its VIP tier and staking discount
 * already in them), times, on a HIP-3 dex, the deployer's fee scale (scale + 1 below 1, twice the
 * scale from 1), times 0.1 for an asset in growth mode, less the referral discount where it cuts
 * (referral-fees.ts: a fee above zero; a maker rebate is neither scaled nor cut). Collateral in an
 * aligned quote token (a smaller taker fee, a larger rebate) is not modelled: every dex here is
 * margined in USDC. Pure; decimals, exact.
 */
import { D, type Dec, type DecLike, dec, wire } from "../../core/decimal.ts";
import { referralCutsFee } from "./referral-fees.ts";

/** The account's side of the formula, as the `userFees` info answer names it (fractions of notional). */
export interface UserFeeRates {
  /** Taker rate. */
  userCrossRate: string;
  /** Maker rate; negative is a rebate. */
  userAddRate: string;
  /** The referral discount in force, a fraction ("0.04"), "0" when none. */
  activeReferralDiscount: string;
}

/** The market's side: where the market is a HIP-3 dex's, its deployer's fee scale and growth mode. */
interface MarketFeeTerms {
  /** `deployerFeeScale` of the market's dex in `perpDexs`; absent on the main dex. */
  deployerFeeScale?: string;
  /** `growthMode: "enabled"` on the asset in its dex's `meta`. */
  growthMode?: boolean;
}

/** What each fill on the market costs, fractions of its notional (decimal strings; negative: a rebate). */
export interface FillFeeRates {
  taker: string;
  maker: string;
}

/** A new account's rates (the base tier, no discount), as `userFees` reports them. */
export const BASE_TIER: UserFeeRates = {
  userCrossRate: "0.00045",
  userAddRate: "0.00015",
  activeReferralDiscount: "0",
};

const GROWTH_MODE_SCALE = "0.1";

/** What a HIP-3 dex's fills cost beside the main dex's at a deployer fee scale: 2 at scale 1. */
export function hip3FeeMultiplier(deployerFeeScale: DecLike): Dec {
  const scale = dec(deployerFeeScale);
  return scale.lt(1) ? scale.plus(1) : scale.times(2);
}

export function fillFeeRates(fees: UserFeeRates, market: MarketFeeTerms = {}): FillFeeRates {
  const dexScale =
    market.deployerFeeScale === undefined ? new D(1) : hip3FeeMultiplier(market.deployerFeeScale);
  const growth = new D(market.growthMode ? GROWTH_MODE_SCALE : 1);
  const kept = new D(1).minus(fees.activeReferralDiscount);
  const rate = (userRate: string): string => {
    const r = dec(userRate).times(growth);
    return wire(referralCutsFee(r.toNumber()) ? r.times(dexScale).times(kept) : r);
  };
  return { taker: rate(fees.userCrossRate), maker: rate(fees.userAddRate) };
}

/**
 * The fee on one fill: its notional times the rate, rounded to the micro-USDC, half away from zero,
 * as the venue rounds every fee (`mulDiv` "round").
 */
export function fillFee(notional: Dec, rate: DecLike): Dec {
  return notional.times(rate).toDecimalPlaces(6, D.ROUND_HALF_UP);
}
