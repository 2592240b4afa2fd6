import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HlStream } from "../../src/exchange/ws.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";

let world: SimWorld;
beforeAll(async () => {
  world = await startSimWorld({ seed: 11 });
});
afterAll(async () => {
  await world.close();
});

describe("HlStream over the sim", () => {
  it("several allMids subscriptions made at once (main + HIP-3 dexes) are all acknowledged", async () => {
    const stream = new HlStream({ url: world.wsUrl, isTestnet: true, timeoutMs: 3000, maxRetries: 0 });
    try {
      const seen = new Map<string, Record<string, string>>();
      const subs = await Promise.all(
        ["", "xyz", "yex"].map((dex) => stream.allMids((e) => seen.set(dex, e.mids), dex ? { dex } : {})),
      );
      expect(subs).toHaveLength(3);
      const deadline = Date.now() + 3000;
      while (seen.size < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(Object.keys(seen.get("") ?? {})).toContain("BTC");
      expect(Object.keys(seen.get("xyz") ?? {})).toContain("xyz:SPCX");
      expect(Object.keys(seen.get("yex") ?? {})).toContain("yex:VXX");
    } finally {
      await stream.close();
    }
  });
});
