import { D } from "../../../core/decimal.ts";
import { fmtScaled } from "../fixed.ts";
import { REFERRAL_DISCOUNT_PCT, referralDiscountActive } from "../referral-fees.ts";
import type { InfoHandler } from "./context.ts";
import { userAccount } from "./context.ts";

const DAY = 86_400_000;
/** Fee tiers are read over a rolling 14 days; the answer lists them and today. */
const DAYS_LISTED = 15;

/**
 * Hyperliquid's published schedule: VIP tiers by 14-day weighted volume (perp and spot taker/maker),
 * maker-rebate tiers by share of exchange maker volume, and staking discounts by HYPE staked as basis
 * points of the max supply (10 HYPE of 1B = 0.0001 bps).
 */
const VIP_TIERS = [
  { ntlCutoff: "5000000.0", cross: "0.0004", add: "0.00012", spotCross: "0.0006", spotAdd: "0.0003" },
  { ntlCutoff: "25000000.0", cross: "0.00035", add: "0.00008", spotCross: "0.0005", spotAdd: "0.0002" },
  { ntlCutoff: "100000000.0", cross: "0.0003", add: "0.00004", spotCross: "0.0004", spotAdd: "0.0001" },
  { ntlCutoff: "500000000.0", cross: "0.00028", add: "0.0", spotCross: "0.00035", spotAdd: "0.0" },
  { ntlCutoff: "2000000000.0", cross: "0.00026", add: "0.0", spotCross: "0.0003", spotAdd: "0.0" },
  { ntlCutoff: "7000000000.0", cross: "0.00024", add: "0.0", spotCross: "0.00025", spotAdd: "0.0" },
];
const MM_TIERS = [
  { makerFractionCutoff: "0.005", add: "-0.00001" },
  { makerFractionCutoff: "0.015", add: "-0.00002" },
  { makerFractionCutoff: "0.03", add: "-0.00003" },
];
const STAKING_DISCOUNT_TIERS = [
  { bpsOfMaxSupply: "0.0", discount: "0.0" },
  { bpsOfMaxSupply: "0.0001", discount: "0.05" },
  { bpsOfMaxSupply: "0.001", discount: "0.1" },
  { bpsOfMaxSupply: "0.01", discount: "0.15" },
  { bpsOfMaxSupply: "0.1", discount: "0.2" },
  { bpsOfMaxSupply: "1.0", discount: "0.3" },
  { bpsOfMaxSupply: "5.0", discount: "0.4" },
];

/** "2026-11-22" for a time (UTC). */
function utcDate(t: number): string {
  return new Date(t).toISOString().slice(0, 10);
}

/**
 * userFees {user}: the schedule, the user's rates, and its daily taker (`userCross`) and maker
 * (`userAdd`) volume next to the whole exchange's, oldest day first. The sim charges the base tier.
 * The user's rates are before the referral discount (`activeReferralDiscount`), as the docs' fee
 * formula reads them: fee = rate × (1 − activeReferralDiscount).
 */
export const userFees: InfoHandler = (c, r) => {
  const a = userAccount(c, r.user);
  const main = c.core.dexes[0]!;
  const rate = (tenthsBp: number) => new D(tenthsBp).div(100_000).toFixed();
  const today = Math.floor(c.now / DAY);
  const dayNumbers: number[] = [];
  for (let k = DAYS_LISTED - 1; k >= 0; k--) dayNumbers.push(today - k);
  const days = dayNumbers.map((d) => utcDate(d * DAY));
  const cross = new Map<string, number>();
  const add = new Map<string, number>();
  const since = Date.parse(`${days[0]}T00:00:00Z`);
  for (let i = a.fills.length - 1; i >= 0; i--) {
    const f = a.fills[i]!;
    if (f.time < since) break;
    const day = utcDate(f.time);
    const into = f.crossed ? cross : add;
    into.set(day, (into.get(day) ?? 0) + f.px * f.sz);
  }
  return {
    dailyUserVlm: days.map((date, i) => ({
      date,
      userCross: fmtScaled(cross.get(date) ?? 0, 6),
      userAdd: fmtScaled(add.get(date) ?? 0, 6),
      exchange: fmtScaled(c.core.dailyVolume.get(dayNumbers[i]!) ?? 0, 6),
    })),
    feeSchedule: {
      cross: rate(main.takerFee),
      add: rate(main.makerFee),
      spotCross: "0.0007",
      spotAdd: "0.0004",
      tiers: { vip: VIP_TIERS, mm: MM_TIERS },
      referralDiscount: new D(REFERRAL_DISCOUNT_PCT).div(100).toFixed(),
      stakingDiscountTiers: STAKING_DISCOUNT_TIERS,
    },
    userCrossRate: rate(main.takerFee),
    userAddRate: rate(main.makerFee),
    userSpotCrossRate: "0.0007",
    userSpotAddRate: "0.0004",
    activeReferralDiscount: referralDiscountActive(a.referredBy !== null, a.volume)
      ? new D(REFERRAL_DISCOUNT_PCT).div(100).toFixed()
      : "0",
    trial: null,
    feeTrialEscrow: "0",
    nextTrialAvailableTimestamp: null,
    stakingLink: null,
    activeStakingDiscount: { bpsOfMaxSupply: "0", discount: "0" },
  };
};
