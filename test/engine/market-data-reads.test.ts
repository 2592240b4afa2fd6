import { describe, expect, it } from "vitest";
import { HlMarketData } from "../../src/engine/hl-adapter.ts";
import type { HlClient } from "../../src/exchange/client.ts";
import type { Market } from "../../src/exchange/symbols.ts";

const ETH: Market = {
  instrument: "ETH-PERP",
  coin: "ETH",
  dex: "",
  assetId: 1,
  szDecimals: 4,
  maxLeverage: 25,
} as Market;

/** A client answering the book at once and counting the asset-context reads (metaAndAssetCtxs, weight 20). */
function countingClient() {
  const reads = { assetContexts: 0, l2Book: 0 };
  const client = {
    apiUrl: "http://127.0.0.1:1",
    market: async () => ETH,
    l2Book: async () => {
      reads.l2Book += 1;
      return {
        coin: "ETH",
        time: 1_000,
        levels: [[{ px: "99", sz: "1", n: 1 }], [{ px: "101", sz: "1", n: 1 }]],
      };
    },
    assetContexts: async () => {
      reads.assetContexts += 1;
      return [{ universe: [{ name: "ETH" }] }, [{ funding: "0.0001", openInterest: "5", dayNtlVlm: "7" }]];
    },
  };
  return { client: client as unknown as HlClient, reads };
}

/**
 * The asset context (funding, open interest, volume) costs 20 of the IP's 1200 a minute per dex and
 * is read once a minute per process: under `hl up` the BTCSWP maker paid it on the yex dex for a
 * funding figure nothing read (a market maker's decisions do not, and on a real or sim account the
 * exchange charges funding itself). Only a strategy that reads it, or a dry run (whose paper book
 * charges funding), asks for it.
 */
describe("HlMarketData's asset-context reads", () => {
  it("are not made for a strategy that does not read them on a run the exchange charges funding for", async () => {
    const { client, reads } = countingClient();
    const s = await new HlMarketData(client).snapshot("ETH-PERP");
    expect(s.mid).toBe(100);
    expect(reads.l2Book).toBe(1);
    expect(reads.assetContexts).toBe(0);
    expect(s.fundingRate).toBe(0);
  });

  it("are made for a strategy that reads them, and for a dry run's funding", async () => {
    const needed = countingClient();
    expect(
      (await new HlMarketData(needed.client, { assetContext: true }).snapshot("ETH-PERP")).openInterest,
    ).toBe(5);
    expect(needed.reads.assetContexts).toBe(1);
    const dry = countingClient();
    expect((await new HlMarketData(dry.client, {}, { funding: true }).snapshot("ETH-PERP")).fundingRate).toBe(
      0.0001,
    );
    expect(dry.reads.assetContexts).toBe(1);
  });
});
