import type { FrontendOpenOrdersResponse } from "@nktkas/hyperliquid";
import { describe, expect, it } from "vitest";
import type { HlClient } from "../../src/exchange/client.ts";
import { HlBackstopPort } from "../../src/guard/hl-backstops.ts";

const stop = (coin: string, oid: number) =>
  ({ coin, oid, cloid: `0x${"ab".repeat(16)}`, isTrigger: true, sz: "0.1", triggerPx: "100" }) as const;

/** A client whose REST listing is counted; the account holds a position on xyz. */
function fakeClient() {
  const restDexes: string[][] = [];
  const client = {
    accountSummary: async () => ({ positions: [{ dex: "xyz" }] }),
    frontendOpenOrdersOf: async (dexes: readonly string[]) => {
      restDexes.push([...dexes]);
      return dexes.map((d, i) => stop(d ? `${d}:REST` : "REST", 100 + i));
    },
    cancelMany: async () => [undefined],
  } as unknown as HlClient;
  return { client, restDexes };
}

describe("the backstops' listing from an open-orders stream", () => {
  it("takes the streamed dexes from the stream until the port acts, then reads REST", async () => {
    const { client, restDexes } = fakeClient();
    const streamed = async (dex: string) =>
      dex === "" ? ([stop("ETH", 1)] as unknown as FrontendOpenOrdersResponse) : undefined;
    const port = new HlBackstopPort(client, streamed);
    expect((await port.restingStops()).map((s) => s.oid).sort()).toEqual([1, 100]);
    expect(restDexes).toEqual([["xyz"]]); // the main dex came from the stream
    await port.cancelStop("ETH", `0x${"ab".repeat(16)}`);
    // A list pushed before the cancel may still show the stop: REST for every dex now.
    expect((await port.restingStops()).map((s) => s.oid).sort()).toEqual([100, 101]);
    expect(restDexes[1]).toEqual(["", "xyz"]);
  });
});
