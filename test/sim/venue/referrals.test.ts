import { describe, expect, it } from "vitest";
import { ALICE, BOB, CAROL, ETH, testVenue } from "./helpers.ts";

type Referral = {
  referredBy: { referrer: string; code: string } | null;
  referrerState: { stage: string; data?: Record<string, unknown> };
};

const referral = (t: ReturnType<typeof testVenue>, user: string) =>
  t.venue.info({ type: "referral", user }) as Referral;

/** BOB trades `usd` dollars of ETH at 3,400 against the house-less book (CAROL on the other side). */
function trade(t: ReturnType<typeof testVenue>, sz: string) {
  t.order(CAROL, { a: ETH, b: false, p: "3400", s: sz });
  expect(t.order(BOB, { a: ETH, b: true, p: "3400", s: sz })).toMatchObject({ filled: { totalSz: sz } });
}

/** BOB with $10,200 traded (3 ETH at 3,400) and the code "BOBCODE". */
function withCode() {
  const t = testVenue();
  trade(t, "3");
  expect(t.ex(BOB, { type: "registerReferrer", code: "BOBCODE" })).toEqual({
    status: "ok",
    response: { type: "default" },
  });
  return t;
}

describe("registerReferrer: a code of one's own, once $10,000 has been traded", () => {
  it("needs $10,000 of volume first; referral says how far the account is", () => {
    const t = testVenue();
    expect(referral(t, BOB).referrerState).toEqual({ stage: "needToTrade", data: { required: "10000" } });
    trade(t, "2"); // $6,800
    expect(t.ex(BOB, { type: "registerReferrer", code: "BOBCODE" })).toEqual({
      status: "err",
      response: "Must have traded $10000 of volume to create a referral code. Traded: $6800.",
    });
    trade(t, "1"); // $10,200
    expect(referral(t, BOB).referrerState).toEqual({ stage: "needToCreateCode" });
    expect(t.ex(BOB, { type: "registerReferrer", code: "BOBCODE" }).status).toBe("ok");
    expect(referral(t, BOB).referrerState).toEqual({
      stage: "ready",
      data: { code: "BOBCODE", nReferrals: 0, referralStates: [] },
    });
  });

  it("keeps one code per account, and a code for one account only", () => {
    const t = withCode();
    expect(t.ex(BOB, { type: "registerReferrer", code: "OTHER" })).toEqual({
      status: "err",
      response: "Referral code already created for this account.",
    });
    // CAROL traded the same $10,200 on the other side.
    expect(t.ex(CAROL, { type: "registerReferrer", code: "bobcode" })).toEqual({
      status: "err",
      response: "Referral code already taken.",
    });
    expect(t.ex(CAROL, { type: "registerReferrer", code: "" })).toEqual({
      status: "err",
      response: "Invalid referral code.",
    });
    expect(t.ex(CAROL, { type: "registerReferrer", code: "X".repeat(21) })).toEqual({
      status: "err",
      response: "Invalid referral code.",
    });
  });
});

describe("setReferrer records who referred the account, and referral reports it", () => {
  it("refuses a code nobody created, and the account stays unreferred", () => {
    const t = testVenue();
    expect(t.ex(ALICE, { type: "setReferrer", code: "NOSUCHCODE" })).toEqual({
      status: "err",
      response: "Referral code does not exist.",
    });
    expect(referral(t, ALICE).referredBy).toBeNull();
  });

  it("records the code's owner; the owner sees the referral", () => {
    const t = withCode();
    t.clock.now += 1_000;
    expect(t.ex(ALICE, { type: "setReferrer", code: "BOBCODE" })).toEqual({
      status: "ok",
      response: { type: "default" },
    });
    expect(referral(t, ALICE).referredBy).toEqual({ referrer: BOB, code: "BOBCODE" });
    const state = referral(t, BOB).referrerState;
    expect(state).toMatchObject({ stage: "ready", data: { code: "BOBCODE", nReferrals: 1 } });
    expect((state.data as { referralStates: unknown[] }).referralStates).toEqual([
      {
        cumVlm: "0",
        cumRewardedFeesSinceReferred: "0",
        cumFeesRewardedToReferrer: "0",
        timeJoined: t.clock.now,
        user: ALICE,
        tokenToState: [
          [0, { cumVlm: "0", cumRewardedFeesSinceReferred: "0", cumFeesRewardedToReferrer: "0" }],
        ],
      },
    ]);
  });

  it("is set once, never to one's own code, and only before the account trades", () => {
    const t = withCode();
    expect(t.ex(BOB, { type: "setReferrer", code: "BOBCODE" })).toEqual({
      status: "err",
      response: "Cannot self-refer",
    });
    expect(t.ex(ALICE, { type: "setReferrer", code: "BOBCODE" }).status).toBe("ok");
    expect(t.ex(ALICE, { type: "setReferrer", code: "BOBCODE" })).toEqual({
      status: "err",
      response: "Referrer already set",
    });
    // CAROL has traded: the sim's strict reading refuses her (see docs/exchange-rules.md).
    expect(t.ex(CAROL, { type: "setReferrer", code: "BOBCODE" })).toEqual({
      status: "err",
      response: "Cannot set referrer after trading.",
    });
    expect(referral(t, CAROL).referredBy).toBeNull();
  });

  it("keeps referrers and codes across a saved and restored world", () => {
    const t = withCode();
    expect(t.ex(ALICE, { type: "setReferrer", code: "BOBCODE" }).status).toBe("ok");
    const u = testVenue();
    u.venue.restore(JSON.parse(JSON.stringify(t.venue.snapshot([]))));
    expect(referral(u, ALICE).referredBy).toEqual({ referrer: BOB, code: "BOBCODE" });
    expect(referral(u, BOB)).toEqual(referral(t, BOB));
    expect(u.ex(ALICE, { type: "setReferrer", code: "BOBCODE" }).response).toBe("Referrer already set");
    expect(u.ex(CAROL, { type: "registerReferrer", code: "BOBCODE" }).response).toBe(
      "Referral code already taken.",
    );
  });
});
