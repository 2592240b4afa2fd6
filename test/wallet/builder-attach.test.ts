import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HlClient, openClientSession } from "../../src/exchange/index.ts";
import { startSimWorld } from "../../src/sim/world.ts";
import { approveBuilderFee, builderConfig } from "../../src/wallet/builder.ts";
import { KEY_A } from "./helpers.ts";

const BUILDER = "0x2222222222222222222222222222222222222222";

describe("trading sessions attach the builder fee only once it is approved", () => {
  let world: Awaited<ReturnType<typeof startSimWorld>>;
  beforeAll(async () => {
    world = await startSimWorld({ port: 0, seed: 5 });
  });
  afterAll(async () => {
    await world?.close();
  });

  const open = () =>
    openClientSession({
      network: "paper",
      apiUrl: world.url,
      privateKey: KEY_A,
      env: { BUILDER_ADDRESS: BUILDER, BUILDER_FEE_TENTHS_BPS: "50" },
      tradingBuilder: true,
    });

  it("trades without the builder and says how to approve while unapproved, then attaches it", async () => {
    const before = await open();
    try {
      expect(before.client.builder).toBeUndefined();
      expect(before.notes.join("\n")).toMatch(/not approved.*hl builder approve/);
    } finally {
      await before.close();
    }

    const signer = await HlClient.create({ network: "paper", apiUrl: world.url, privateKey: KEY_A, env: {} });
    await approveBuilderFee(
      signer,
      builderConfig({ BUILDER_ADDRESS: BUILDER, BUILDER_FEE_TENTHS_BPS: "50" }),
    );
    await signer.close();

    const after = await open();
    try {
      expect(after.client.builder).toEqual({ address: BUILDER, feeTenthsBps: 50 });
      const r = await after.client.marketOrder({ instrument: "ETH-PERP", side: "buy", size: "0.01" });
      expect(r.status).toBe("filled");
      const fills = await after.client.userFills();
      const fill = fills.find((f) => f.coin === "ETH");
      expect(fill?.builderFee).toBeDefined();
      expect(Number(fill?.builderFee)).toBeGreaterThan(0);
    } finally {
      await after.close();
    }
  });
});
