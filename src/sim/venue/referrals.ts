/**
 * Referral codes as Hyperliquid keeps them (docs: Referrals; docs/exchange-rules.md lists each rule
 * and its source): an account creates one code of its own (`registerReferrer`, 1–20 characters)
 * once it has traded $10,000; another account names that code once (`setReferrer`) and the code's
 * owner becomes its referrer. The `referral` info type reports both sides. Where the exchange's
 * rule is not on record the sim reads it strictly: codes are unique ignoring case, and an account
 * that has traded can no longer name a referrer. What a referral does to fees (the referred
 * account's discount, the referrer's reward) is in referral-fees.ts; the rewards accrue unclaimed
 * (`claimRewards` is not modelled).
 */
import type { ExchangeResponse } from "../venue.ts";
import type { VenueCore } from "./core.ts";
import { fmtScaled, tradedUsd } from "./fixed.ts";
import type { Account } from "./types.ts";

/** Volume (USD) an account must have traded before it may create a code. */
const REFERRER_MIN_VOLUME_USD = 10_000;
const MAX_CODE_LENGTH = 20;

const ok: ExchangeResponse = { status: "ok", response: { type: "default" } };
const err = (message: string): ExchangeResponse => ({ status: "err", response: message });

export function registerReferrer(core: VenueCore, a: Account, code: unknown): ExchangeResponse {
  if (typeof code !== "string" || code.length < 1 || code.length > MAX_CODE_LENGTH)
    return err("Invalid referral code.");
  if (a.referralCode !== null) return err("Referral code already created for this account.");
  if (a.volume < REFERRER_MIN_VOLUME_USD * 1_000_000)
    return err(
      `Must have traded $${REFERRER_MIN_VOLUME_USD} of volume to create a referral code. Traded: $${tradedUsd(a.volume)}.`,
    );
  const key = code.toUpperCase();
  if (core.referralCodes.has(key)) return err("Referral code already taken.");
  core.referralCodes.set(key, a.addr);
  a.referralCode = code;
  return ok;
}

export function setReferrer(core: VenueCore, a: Account, code: unknown, now: number): ExchangeResponse {
  const owner = typeof code === "string" ? core.referralCodes.get(code.toUpperCase()) : undefined;
  const referrer = owner === undefined ? undefined : core.accounts.get(owner);
  if (typeof code !== "string" || referrer?.referralCode !== code)
    return err("Referral code does not exist.");
  if (referrer === a) return err("Cannot self-refer");
  if (a.referredBy !== null) return err("Referrer already set");
  if (a.volume > 0) return err("Cannot set referrer after trading.");
  a.referredBy = { referrer: referrer.addr, code, time: now, rewardedFees: 0, feesToReferrer: 0 };
  return ok;
}

/**
 * `referredBy`, `referrerState` and the referrer's `unclaimedRewards` (micro-USDC) of the `referral`
 * info answer.
 */
export function referralSides(core: VenueCore, a: Account) {
  const referredBy = a.referredBy ? { referrer: a.referredBy.referrer, code: a.referredBy.code } : null;
  const referred = referralsOf(core, a);
  const unclaimedRewards = referred.reduce((sum, r) => sum + r.referredBy!.feesToReferrer, 0);
  return { referredBy, referrerState: referrerState(a, referred), unclaimedRewards };
}

/** The accounts that named `a`'s code, first joined first. */
function referralsOf(core: VenueCore, a: Account): Account[] {
  if (a.referralCode === null) return [];
  return [...core.accounts.values()]
    .filter((r) => r.referredBy?.referrer === a.addr)
    .sort((x, y) => x.referredBy!.time - y.referredBy!.time);
}

function referrerState(a: Account, referred: Account[]) {
  if (a.referralCode === null)
    return a.volume < REFERRER_MIN_VOLUME_USD * 1_000_000
      ? { stage: "needToTrade" as const, data: { required: String(REFERRER_MIN_VOLUME_USD) } }
      : { stage: "needToCreateCode" as const };
  // The volume is the referred account's own (it named no code before trading).
  const rewards = (r: Account) => ({
    cumVlm: fmtScaled(r.volume, 6),
    cumRewardedFeesSinceReferred: fmtScaled(r.referredBy!.rewardedFees, 6),
    cumFeesRewardedToReferrer: fmtScaled(r.referredBy!.feesToReferrer, 6),
  });
  return {
    stage: "ready" as const,
    data: {
      code: a.referralCode,
      nReferrals: referred.length,
      referralStates: referred.map((r) => ({
        ...rewards(r),
        timeJoined: r.referredBy!.time,
        user: r.addr,
        tokenToState: [[0, rewards(r)]],
      })),
    },
  };
}
