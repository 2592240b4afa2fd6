/**
 * What a referral does to a fill's fee (Hyperliquid docs, *Referrals*, *Trading → Fees* and its fee
 * formula for developers; docs/exchange-rules.md lists each rule and its source): the referred
 * account pays its fee less 4 % while its volume is under $25M (taker fees, and maker fees above
 * zero: a rebate is not cut), and its referrer earns 10 % of the fee it paid while its volume is
 * under $1B. An order carrying a builder code overrides the referral: full fee, no reward. Pure:
 * integers in micro-USDC and tenths of a basis point, exact.
 */
import { mulDiv } from "./fixed.ts";

/** The referred account's discount, percent; `activeReferralDiscount` in `userFees` as a fraction. */
export const REFERRAL_DISCOUNT_PCT = 4;
/** The referrer's share of what the referred account pays, percent. */
const REFERRER_SHARE_PCT = 10;
/** Volume (USD) of the referred account up to which the discount applies. */
const DISCOUNT_VOLUME_CAP_USD = 25_000_000;
/** Volume (USD) of the referred account up to which its referrer is rewarded. */
const REWARD_VOLUME_CAP_USD = 1_000_000_000;

interface FeeWithReferral {
  /** The exchange fee the account pays, micro-USDC. */
  fee: number;
  /** The referrer's reward from it, micro-USDC (0 when none is earned). */
  reward: number;
  /** Whether the fee counts toward the referral's rewarded fees. */
  rewarded: boolean;
}

/**
 * Whether a referral discount cuts a fee charged at `rate` (any unit): a fee above zero is cut, a
 * maker rebate is kept whole (the docs' formula applies the discount only `if (makerPercentage > 0)`).
 */
export function referralCutsFee(rate: number): boolean {
  return rate > 0;
}

/** The discount in force for an account referred or not, having traded `volumeMicro` so far. */
export function referralDiscountActive(referred: boolean, volumeMicro: number): boolean {
  return referred && volumeMicro < DISCOUNT_VOLUME_CAP_USD * 1_000_000;
}

/**
 * The exchange fee on `ntl` micro-USDC at `feeRate` tenths of a bp, for an account `referred` or
 * not, that had traded `volumeBefore` micro-USDC before this fill. The fee is rounded to the
 * micro-USDC as every fee is; the reward is rounded down (never more than 10 %).
 */
export function feeWithReferral(
  ntl: number,
  feeRate: number,
  referred: boolean,
  volumeBefore: number,
  withBuilder: boolean,
): FeeWithReferral {
  const applies = referred && !withBuilder;
  const discounted = referralCutsFee(feeRate) && applies && referralDiscountActive(true, volumeBefore);
  const fee = discounted
    ? mulDiv(ntl, feeRate * (100 - REFERRAL_DISCOUNT_PCT), 100_000 * 100, "round")
    : mulDiv(ntl, feeRate, 100_000, "round");
  const rewarded = applies && fee > 0 && volumeBefore < REWARD_VOLUME_CAP_USD * 1_000_000;
  const reward = rewarded ? mulDiv(fee, REFERRER_SHARE_PCT, 100, "floor") : 0;
  return { fee, reward, rewarded };
}
