import { ApiRequestError, ExchangeClient, InfoClient, type IRequestTransport } from "@nktkas/hyperliquid";
import { SymbolConverter } from "@nktkas/hyperliquid/utils";
import { privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import type { Address, ExchangeAction } from "../../../src/sim/venue.ts";
import { BOB, BUILDER, testVenue } from "./helpers.ts";

const KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

/** The SDK, unchanged, talking to the venue in-process (JSON round trip as on the wire; signer taken as the user). */
function sdkPair() {
  const t = testVenue({ balance: "50000" });
  const wallet = privateKeyToAccount(KEY);
  const user = wallet.address.toLowerCase() as Address;
  const wire = (v: unknown) => JSON.parse(JSON.stringify(v));
  const transport: IRequestTransport = {
    isTestnet: false,
    async request<T>(endpoint: "info" | "exchange" | "explorer", payload: unknown): Promise<T> {
      const body = wire(payload) as { action: ExchangeAction; nonce: number; type: string };
      if (endpoint === "info") return wire(t.venue.info(body)) as T;
      return wire(t.venue.exchange(body.action, user, body.nonce)) as T;
    },
  };
  return {
    t,
    user,
    info: new InfoClient({ transport }),
    exchange: new ExchangeClient({ transport, wallet }),
    transport,
  };
}

describe("@nktkas/hyperliquid 0.32.2 against the venue", () => {
  it("loads symbols (HIP-3 ids included) and market contexts", async () => {
    const { info, transport } = sdkPair();
    const conv = await SymbolConverter.create({ transport, dexs: true });
    expect(conv.getAssetId("BTC")).toBe(0);
    expect(conv.getAssetId("xyz:XYZ100")).toBe(110000);
    expect(conv.getAssetId("xyz:SPCX")).toBe(110003);
    expect(conv.getAssetId("yex:BTCSWP")).toBe(120002);
    expect(conv.getSzDecimals("yex:VXX")).toBe(2);
    const [meta, ctxs] = await info.metaAndAssetCtxs({ dex: "yex" });
    expect(meta.universe).toHaveLength(3);
    expect(ctxs[0]!.oraclePx).toBe("45");
    expect(Object.keys(await info.allMids())).toContain("ETH");
  });

  it("places, fills and cancels orders with the SDK's signed actions", async () => {
    const { t, user, info, exchange } = sdkPair();
    t.order(BOB, { a: 0, b: false, p: "97000", s: "0.05" });
    await exchange.approveBuilderFee({ maxFeeRate: "0.01%", builder: BUILDER });
    expect(await info.maxBuilderFee({ user, builder: BUILDER })).toBe(10);
    await exchange.updateLeverage({ asset: 0, isCross: true, leverage: 10 });
    // A new account margins yex with yex's own USDC: move some there first, as live.
    await exchange.sendAsset({
      destination: user,
      sourceDex: "",
      destinationDex: "yex",
      token: "USDC:0x6d1e7cde53ba9467b783cb7c530ce054",
      amount: "100",
    });
    expect((await info.clearinghouseState({ user, dex: "yex" })).withdrawable).toBe("100");
    const res = await exchange.order({
      orders: [
        { a: 0, b: true, p: "97500", s: "0.02", r: false, t: { limit: { tif: "Ioc" } } },
        {
          a: 120000,
          b: true,
          p: "40",
          s: "10",
          r: false,
          t: { limit: { tif: "Gtc" } },
          c: "0x0000000000000000000000000000beef",
        },
      ],
      grouping: "na",
      builder: { b: BUILDER, f: 10 },
    });
    expect(res.response.data.statuses).toEqual([
      { filled: { totalSz: "0.02", avgPx: "97000", oid: 2 } },
      { resting: { oid: 3, cloid: "0x0000000000000000000000000000beef" } },
    ]);
    const state = await info.clearinghouseState({ user });
    expect(state.assetPositions[0]!.position).toMatchObject({
      coin: "BTC",
      szi: "0.02",
      leverage: { type: "cross", value: 10 },
    });
    const fills = await info.userFills({ user });
    expect(fills[0]).toMatchObject({ builderFee: "0.194", fee: "1.067" });
    await exchange.cancelByCloid({
      cancels: [{ asset: 120000, cloid: "0x0000000000000000000000000000beef" }],
    });
    expect(await info.openOrders({ user, dex: "yex" })).toEqual([]);
  });

  it("sets the account's abstraction mode with the SDK's actions and reads it back", async () => {
    const { user, info, exchange } = sdkPair();
    expect(await info.userAbstraction({ user })).toBe("default");
    expect(await info.userDexAbstraction({ user })).toBeNull();
    await exchange.userDexAbstraction({ user, enabled: true });
    expect(await info.userAbstraction({ user })).toBe("dexAbstraction");
    await exchange.userSetAbstraction({ user, abstraction: "disabled" });
    expect(await info.userDexAbstraction({ user })).toBe(false);
    await expect(exchange.agentEnableDexAbstraction()).rejects.toThrow(ApiRequestError);
    await exchange.agentSetAbstraction({ abstraction: "i" });
    await expect(exchange.userSetAbstraction({ user, abstraction: "unifiedAccount" })).rejects.toThrow(
      /not modelled by the sim world/,
    );
  });

  it("surfaces the venue's refusals as the SDK's ApiRequestError", async () => {
    const { exchange } = sdkPair();
    const bad = exchange.order({
      orders: [{ a: 0, b: true, p: "97000.5", s: "0.01", r: false, t: { limit: { tif: "Gtc" } } }],
      grouping: "na",
    });
    await expect(bad).rejects.toThrow(ApiRequestError);
    await expect(bad).rejects.toThrow(/Order has invalid price/);
  });
});
