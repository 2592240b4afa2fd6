import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HlClient } from "../../src/exchange/index.ts";
import { DEFAULT_BUILDERS } from "../../src/services/points/config.ts";
import { startSimWorld } from "../../src/sim/world.ts";
import {
  approveBuilderFee,
  type BuilderApprovalClient,
  builderConfig,
  builderFeeForClient,
  builderStatus,
  DEFAULT_BUILDER_ADDRESS,
  feePercentString,
} from "../../src/wallet/builder.ts";
import { KEY_A } from "./helpers.ts";

const BUILDER = "0x1111111111111111111111111111111111111111";

describe("builder fee config", () => {
  it("defaults: enabled, 100 tenths = 10 bps = 0.1%", () => {
    expect(builderStatus({})).toEqual({
      enabled: true,
      builder_address: DEFAULT_BUILDER_ADDRESS,
      fee_bps: 10,
      fee_rate_tenths_bps: 100,
      max_fee_rate_str: "0.1%",
    });
  });

  it("percent strings as approveBuilderFee signs them", () => {
    expect([100, 10, 15, 5, 1].map(feePercentString)).toEqual([
      "0.1%",
      "0.01%",
      "0.015%",
      "0.005%",
      "0.001%",
    ]);
  });

  it("BUILDER_ADDRESS= or a zero fee disables it", () => {
    expect(builderStatus({ BUILDER_ADDRESS: "" })).toMatchObject({ enabled: false, builder_address: "" });
    expect(builderStatus({ BUILDER_FEE_TENTHS_BPS: "0" }).enabled).toBe(false);
    expect(builderFeeForClient({ BUILDER_FEE_TENTHS_BPS: "0" })).toBeUndefined();
    expect(builderFeeForClient({ BUILDER_ADDRESS: BUILDER, BUILDER_FEE_TENTHS_BPS: "25" })).toEqual({
      address: BUILDER,
      feeTenthsBps: 25,
    });
  });

  it("refuses fees above the 0.1% perp cap and malformed values", () => {
    expect(() => builderConfig({ BUILDER_FEE_TENTHS_BPS: "101" })).toThrow(/0\.1% perp cap/);
    expect(() => builderConfig({ BUILDER_FEE_TENTHS_BPS: "12.5" })).toThrow(/whole number/);
    expect(() => builderConfig({ BUILDER_FEE_TENTHS_BPS: "-1" })).toThrow(/whole number/);
    expect(() => builderConfig({ BUILDER_ADDRESS: "0x123" })).toThrow(/40 hex/);
  });
});

describe("approveBuilderFee", () => {
  function fakeClient(approved: number): BuilderApprovalClient & { signed: number[] } {
    let current = approved;
    const signed: number[] = [];
    return {
      address: "0xabc",
      signed,
      maxBuilderFee: async () => current,
      approveBuilderFee: async ({ maxFeeTenthsBps }) => {
        signed.push(maxFeeTenthsBps);
        current = maxFeeTenthsBps;
      },
    };
  }
  const cfg = builderConfig({ BUILDER_ADDRESS: BUILDER, BUILDER_FEE_TENTHS_BPS: "50" });

  it("signs only when the existing approval is below the configured fee", async () => {
    const low = fakeClient(10);
    expect(await approveBuilderFee(low, cfg)).toEqual({ signed: true, approvedTenthsBps: 50 });
    expect(low.signed).toEqual([50]);
    const enough = fakeClient(100);
    expect(await approveBuilderFee(enough, cfg)).toEqual({ signed: false, approvedTenthsBps: 100 });
    expect(enough.signed).toEqual([]);
  });

  it("refuses when the builder fee is disabled", async () => {
    await expect(approveBuilderFee(fakeClient(0), builderConfig({ BUILDER_ADDRESS: "" }))).rejects.toThrow(
      /not configured/,
    );
  });

  describe("against the sim world", () => {
    let world: Awaited<ReturnType<typeof startSimWorld>>;
    beforeAll(async () => {
      world = await startSimWorld({ port: 0, houseMakers: false });
    });
    afterAll(async () => {
      await world?.close();
    });

    it("signs approveBuilderFee through the exchange client and reads it back", async () => {
      const client = await HlClient.create({
        network: "paper",
        apiUrl: world.url,
        privateKey: KEY_A,
        env: {},
      });
      try {
        await client.clearinghouseState(); // the sim world opens the account on first sight
        expect(await client.maxBuilderFee({ builder: BUILDER })).toBe(0);
        expect(await approveBuilderFee(client, builderConfig({ BUILDER_ADDRESS: BUILDER }))).toEqual({
          signed: true,
          approvedTenthsBps: 100,
        });
        expect(await approveBuilderFee(client, builderConfig({ BUILDER_ADDRESS: BUILDER }))).toMatchObject({
          signed: false,
        });
      } finally {
        await client.close();
      }
    });
  });
});

describe("builder codes", () => {
  it("the default order builder is one the points program counts", () => {
    const eligible = DEFAULT_BUILDERS.map((b) => b.address.toLowerCase());
    expect(eligible).toContain(builderConfig({}).address.toLowerCase());
  });
});
