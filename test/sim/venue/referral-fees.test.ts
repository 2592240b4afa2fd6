import { describe, expect, it } from "vitest";
import { feeWithReferral } from "../../../src/sim/venue/referral-fees.ts";
import { ALICE, BOB, BTC, BUILDER, CAROL, ETH, testVenue } from "./helpers.ts";

type Fill = { fee: string; builderFee?: string };
type ReferralState = {
  cumVlm: string;
  cumRewardedFeesSinceReferred: string;
  cumFeesRewardedToReferrer: string;
};
type Referral = {
  unclaimedRewards: string;
  tokenToState: [number, { unclaimedRewards: string }][];
  referrerState: { stage: string; data?: { referralStates: (ReferralState & { user: string })[] } };
};

const fills = (t: ReturnType<typeof testVenue>, user: string) =>
  t.venue.info({ type: "userFills", user }) as Fill[];
const lastFee = (t: ReturnType<typeof testVenue>, user: string) => fills(t, user)[0]!.fee;
const referral = (t: ReturnType<typeof testVenue>, user: string) =>
  t.venue.info({ type: "referral", user }) as Referral;
const userFees = (t: ReturnType<typeof testVenue>, user: string) =>
  t.venue.info({ type: "userFees", user }) as Record<string, unknown>;

/** BOB owns the code "BOBCODE" (3 ETH traded with CAROL first); ALICE names it before trading. */
function referred(balance = "100000") {
  const t = testVenue({ balance });
  t.order(CAROL, { a: ETH, b: false, p: "3400", s: "3" });
  t.order(BOB, { a: ETH, b: true, p: "3400", s: "3" });
  expect(t.ex(BOB, { type: "registerReferrer", code: "BOBCODE" }).status).toBe("ok");
  expect(t.ex(ALICE, { type: "setReferrer", code: "BOBCODE" }).status).toBe("ok");
  return t;
}

describe("a referred account pays 4 % less, its referrer earns 10 % of what it pays", () => {
  it("discounts the taker and the maker fee; the counterparty pays in full", () => {
    const t = referred();
    // ALICE takes 0.37 ETH at 3,400 ($1,258): 0.045 % = 0.5661, less 4 % = 0.543456.
    t.order(CAROL, { a: ETH, b: false, p: "3400", s: "0.37" });
    t.order(ALICE, { a: ETH, b: true, p: "3400", s: "0.37" });
    expect(lastFee(t, ALICE)).toBe("0.543456");
    expect(lastFee(t, CAROL)).toBe("0.1887"); // maker 0.015 %, not referred
    // ALICE rests 0.37 ETH and is taken: 0.015 % = 0.1887, less 4 % = 0.181152.
    t.order(ALICE, { a: ETH, b: false, p: "3400", s: "0.37" });
    t.order(CAROL, { a: ETH, b: true, p: "3400", s: "0.37" });
    expect(lastFee(t, ALICE)).toBe("0.181152");
    expect(lastFee(t, CAROL)).toBe("0.5661");
    expect(userFees(t, ALICE)).toMatchObject({
      activeReferralDiscount: "0.04",
      // The rates are before the referral discount, as the docs' fee formula reads them.
      userCrossRate: "0.00045",
      userAddRate: "0.00015",
    });
    expect(userFees(t, CAROL).activeReferralDiscount).toBe("0");
  });

  it("reports the fees and the referrer's 10 % (rounded down per fill) in referral", () => {
    const t = referred();
    t.order(CAROL, { a: ETH, b: false, p: "3400", s: "0.37" });
    t.order(ALICE, { a: ETH, b: true, p: "3400", s: "0.37" });
    t.order(ALICE, { a: ETH, b: false, p: "3400", s: "0.37" });
    t.order(CAROL, { a: ETH, b: true, p: "3400", s: "0.37" });
    // Fees 0.543456 + 0.181152 = 0.724608; rewards 0.054345 + 0.018115 = 0.07246.
    const bob = referral(t, BOB);
    expect(bob.referrerState.data!.referralStates[0]).toMatchObject({
      user: ALICE,
      cumVlm: "2516",
      cumRewardedFeesSinceReferred: "0.724608",
      cumFeesRewardedToReferrer: "0.07246",
      tokenToState: [
        [
          0,
          { cumVlm: "2516", cumRewardedFeesSinceReferred: "0.724608", cumFeesRewardedToReferrer: "0.07246" },
        ],
      ],
    });
    expect(bob.unclaimedRewards).toBe("0.07246");
    expect(bob.tokenToState[0]![1].unclaimedRewards).toBe("0.07246");
    // The reward is not claimable on the sim, so it moves no balance.
    expect(referral(t, ALICE).unclaimedRewards).toBe("0");
  });

  it("an order with a builder code pays the full fee and rewards no referrer", () => {
    const t = referred();
    expect(
      t.ex(ALICE, { type: "approveBuilderFee", maxFeeRate: "0.01%", builder: BUILDER, nonce: 1 }).status,
    ).toBe("ok");
    t.order(CAROL, { a: ETH, b: false, p: "3400", s: "0.37" });
    t.order(ALICE, { a: ETH, b: true, p: "3400", s: "0.37" }, { b: BUILDER, f: 10 });
    // 0.5661 exchange fee + 0.1258 builder fee (0.01 %).
    expect(fills(t, ALICE)[0]).toMatchObject({ fee: "0.6919", builderFee: "0.1258" });
    expect(referral(t, BOB).referrerState.data!.referralStates[0]).toMatchObject({
      cumVlm: "1258",
      cumRewardedFeesSinceReferred: "0",
      cumFeesRewardedToReferrer: "0",
    });
  });

  it("ends the discount once $25M has been traded; the reward goes on", () => {
    const t = referred("1000000");
    // Two fills of 130 BTC at 97,000 ($12.61M each): the second still starts under $25M.
    t.order(CAROL, { a: BTC, b: false, p: "97000", s: "130" });
    t.order(ALICE, { a: BTC, b: true, p: "97000", s: "130" });
    t.order(CAROL, { a: BTC, b: true, p: "97000", s: "130" });
    t.order(ALICE, { a: BTC, b: false, p: "97000", s: "130" });
    expect(lastFee(t, ALICE)).toBe("5447.52"); // $12.61M × 0.045 % × 0.96
    expect(userFees(t, ALICE).activeReferralDiscount).toBe("0");
    t.order(CAROL, { a: ETH, b: false, p: "3400", s: "0.37" });
    t.order(ALICE, { a: ETH, b: true, p: "3400", s: "0.37" });
    expect(lastFee(t, ALICE)).toBe("0.5661");
    expect(referral(t, BOB).referrerState.data!.referralStates[0]).toMatchObject({
      cumRewardedFeesSinceReferred: "10895.6061", // 5447.52 × 2 + 0.5661
      cumFeesRewardedToReferrer: "1089.56061", // 544.752 × 2 + 0.05661
    });
  });

  it("keeps the rewards across a saved and restored world", () => {
    const t = referred();
    t.order(CAROL, { a: ETH, b: false, p: "3400", s: "0.37" });
    t.order(ALICE, { a: ETH, b: true, p: "3400", s: "0.37" });
    const u = testVenue();
    u.venue.restore(JSON.parse(JSON.stringify(t.venue.snapshot([]))));
    expect(referral(u, BOB)).toEqual(referral(t, BOB));
    expect(referral(u, BOB).unclaimedRewards).toBe("0.054345");
  });

  it("restores a world saved before rewards were kept with none, and counts on from there", () => {
    const t = referred();
    t.order(CAROL, { a: ETH, b: false, p: "3400", s: "0.37" });
    t.order(ALICE, { a: ETH, b: true, p: "3400", s: "0.37" });
    const saved = JSON.parse(JSON.stringify(t.venue.snapshot([])));
    for (const a of saved.accounts as { referredBy?: Record<string, unknown> | null }[]) {
      delete a.referredBy?.rewardedFees;
      delete a.referredBy?.feesToReferrer;
    }
    const u = testVenue();
    u.venue.restore(saved);
    expect(referral(u, BOB).unclaimedRewards).toBe("0");
    u.order(CAROL, { a: ETH, b: true, p: "3400", s: "0.37" });
    u.order(ALICE, { a: ETH, b: false, p: "3400", s: "0.37" });
    expect(referral(u, BOB).unclaimedRewards).toBe("0.054345");
  });
});

describe("feeWithReferral: the caps, read on the volume before the fill", () => {
  const M = 1_000_000; // micro-USDC per dollar
  const ntl = 10_000 * M; // a $10,000 fill at the taker rate (45 tenths of a bp): $4.50

  it("discounts below $25M, not from it; rewards below $1B, not from it", () => {
    expect(feeWithReferral(ntl, 45, true, 25_000_000 * M - 1, false)).toEqual({
      fee: 4_320_000,
      reward: 432_000,
      rewarded: true,
    });
    expect(feeWithReferral(ntl, 45, true, 25_000_000 * M, false)).toEqual({
      fee: 4_500_000,
      reward: 450_000,
      rewarded: true,
    });
    expect(feeWithReferral(ntl, 45, true, 1_000_000_000 * M - 1, false).reward).toBe(450_000);
    expect(feeWithReferral(ntl, 45, true, 1_000_000_000 * M, false)).toEqual({
      fee: 4_500_000,
      reward: 0,
      rewarded: false,
    });
  });

  it("changes nothing for an account nobody referred, nor on a builder-coded order", () => {
    const full = { fee: 4_500_000, reward: 0, rewarded: false };
    expect(feeWithReferral(ntl, 45, false, 0, false)).toEqual(full);
    expect(feeWithReferral(ntl, 45, true, 0, true)).toEqual(full);
  });

  it("rounds the fee to the micro-USDC and the reward down", () => {
    // $0.37 × 0.045 % × 0.96 = 0.00015984 → 0.00016; its 10 % 0.000016 → 0.000016.
    expect(feeWithReferral(370_000, 45, true, 0, false)).toEqual({ fee: 160, reward: 16, rewarded: true });
    // $1.01 × 0.045 % × 0.96 = 0.00043632 → 0.000436; 10 % = 0.0000436 → 0.000043.
    expect(feeWithReferral(1_010_000, 45, true, 0, false)).toEqual({ fee: 436, reward: 43, rewarded: true });
  });
});
