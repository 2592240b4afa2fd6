import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { D, wire } from "../../../src/core/decimal.ts";
import { BASE_TIER, fillFee, fillFeeRates, hip3FeeMultiplier } from "../../../src/sim/venue/fee-rates.ts";
import { fmtScaled } from "../../../src/sim/venue/fixed.ts";
import { feeWithReferral, REFERRAL_DISCOUNT_PCT } from "../../../src/sim/venue/referral-fees.ts";

const referred = { ...BASE_TIER, activeReferralDiscount: "0.04" };

describe("the rates a fill is charged at (the docs' fee formula)", () => {
  it("a new account pays the base tier on the main dex; a referral takes 4 % off both", () => {
    expect(fillFeeRates(BASE_TIER)).toEqual({ taker: "0.00045", maker: "0.00015" });
    expect(fillFeeRates(referred)).toEqual({ taker: "0.000432", maker: "0.000144" });
  });

  it("takes the account's own rates as userFees gives them (tier and staking discount inside)", () => {
    // The docs' userFees example: a 30 % staking discount already in userCrossRate.
    const staked = { userCrossRate: "0.000315", userAddRate: "0.000105", activeReferralDiscount: "0" };
    expect(fillFeeRates(staked)).toEqual({ taker: "0.000315", maker: "0.000105" });
  });

  it("a HIP-3 dex scales fees by scale + 1 below a deployer fee scale of 1, twice the scale from 1", () => {
    expect(wire(hip3FeeMultiplier("0"))).toBe("1");
    expect(wire(hip3FeeMultiplier("0.5"))).toBe("1.5");
    expect(wire(hip3FeeMultiplier("1.0"))).toBe("2");
    expect(wire(hip3FeeMultiplier("3"))).toBe("6");
    expect(fillFeeRates(BASE_TIER, { deployerFeeScale: "1.0" })).toEqual({
      taker: "0.0009",
      maker: "0.0003",
    });
    expect(fillFeeRates(referred, { deployerFeeScale: "0.5" })).toEqual({
      taker: "0.000648",
      maker: "0.000216",
    });
    // Growth mode: a tenth of it all.
    expect(fillFeeRates(BASE_TIER, { deployerFeeScale: "1.0", growthMode: true })).toEqual({
      taker: "0.00009",
      maker: "0.00003",
    });
  });

  it("a maker rebate is neither scaled by the dex nor cut by the referral (growth mode still cuts it)", () => {
    const rebate = { userCrossRate: "0.00024", userAddRate: "-0.00003", activeReferralDiscount: "0.04" };
    expect(fillFeeRates(rebate, { deployerFeeScale: "1.0" })).toEqual({
      taker: "0.0004608",
      maker: "-0.00003",
    });
    expect(fillFeeRates(rebate, { deployerFeeScale: "1.0", growthMode: true }).maker).toBe("-0.000003");
    expect(fillFeeRates({ ...rebate, userAddRate: "0" }).maker).toBe("0");
  });

  it("rounds each fee to the micro-USDC, half away from zero, as the venue does", () => {
    expect(wire(fillFee(new D("1258"), "0.000432"))).toBe("0.543456");
    expect(wire(fillFee(new D("0.01"), "0.00015"))).toBe("0.000002"); // 1.5 µUSDC
    expect(wire(fillFee(new D("0.01"), "0.00025"))).toBe("0.000003"); // 2.5 µUSDC
    expect(wire(fillFee(new D("0.01"), "-0.00025"))).toBe("-0.000003");
  });

  it("charges every fill what the sim's venue charges it, referred or not, at any integer rate", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2_000_000_000_000 }),
        fc.integer({ min: 1, max: 100 }),
        fc.boolean(),
        (ntlMicro, tenthsBp, isReferred) => {
          const rate = wire(new D(tenthsBp).div(100_000));
          const fees = {
            userCrossRate: rate,
            userAddRate: rate,
            activeReferralDiscount: isReferred ? wire(new D(REFERRAL_DISCOUNT_PCT).div(100)) : "0",
          };
          const venue = feeWithReferral(ntlMicro, tenthsBp, isReferred, 0, false).fee;
          const paper = fillFee(new D(ntlMicro).div(1_000_000), fillFeeRates(fees).taker);
          expect(wire(paper)).toBe(wire(fmtScaled(venue, 6)));
        },
      ),
      { numRuns: 300 },
    );
  });
});
