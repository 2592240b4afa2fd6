import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { RateLimitedError } from "../../src/exchange/errors.ts";
import { HlStream } from "../../src/exchange/ws.ts";
import { WS_LIMITS } from "../../src/sim/server/ws-limits.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A connection holding one of the address's slots. */
async function holdSlot(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  return ws;
}

describe("HlStream refused by the exchange's WebSocket limits", () => {
  let world: SimWorld;
  beforeAll(async () => {
    // One connection per IP, so that a second one is refused without opening eleven.
    world = await startSimWorld({
      historyDays: 0,
      houseMakers: false,
      liveCoins: ["BTC"],
      wsLimits: { ...WS_LIMITS, connections: 1 },
    });
  });
  afterAll(async () => {
    await world.close();
  });

  const use = () => world.wsLimits().addresses.find((a) => a.address === "127.0.0.1")!;

  it("over the connection limit: fails with the exchange's reason, logs once, backs off without reconnecting, then streams", async () => {
    const holder = await holdSlot(world.wsUrl);
    const logs: Record<string, unknown>[] = [];
    const stream = new HlStream({
      url: world.wsUrl,
      isTestnet: true,
      timeoutMs: 3000,
      log: (event) => logs.push(event),
      refusalBackoffMs: { min: 600, max: 1200 },
    });
    try {
      const first = stream.allMids(() => undefined);
      await expect(first).rejects.toThrow(RateLimitedError);
      await expect(first).rejects.toThrow("Cannot open more than 1 connections.");
      // Within the back-off: no reconnect storm, and a new subscription fails at once without connecting.
      await sleep(300);
      await expect(stream.allMids(() => undefined)).rejects.toThrow(/Cannot open more than 1 connections/);
      expect(use().newConnectionsLastMinute).toBe(2);
      expect(use().refused.connections).toBe(1);
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatchObject({ event: "ws_refused", reason: "Cannot open more than 1 connections." });

      // The slot freed and the back-off over: the stream connects again and prices flow.
      holder.close();
      await sleep(700);
      const mids = await new Promise<Record<string, string>>((resolve, reject) => {
        stream.allMids((e) => resolve(e.mids)).catch(reject);
      });
      expect(Number(mids.BTC)).toBeGreaterThan(0);
      expect(use().connections).toBe(1);
    } finally {
      holder.close();
      await stream.close();
    }
  });

  it("a subscription refused (too many users) ends at once with the exchange's text, and the stream's subscriptions are handed back to REST", async () => {
    const tight = await startSimWorld({
      historyDays: 0,
      houseMakers: false,
      liveCoins: ["BTC"],
      wsLimits: { ...WS_LIMITS, users: 1 },
    });
    const logs: Record<string, unknown>[] = [];
    const stream = new HlStream({
      url: tight.wsUrl,
      isTestnet: true,
      timeoutMs: 5000,
      log: (event) => logs.push(event),
      refusalBackoffMs: { min: 5000, max: 5000 },
    });
    try {
      const held = await stream.userFills("0x00000000000000000000000000000000000000a1", () => undefined);
      const started = Date.now();
      await expect(
        stream.userFills("0x00000000000000000000000000000000000000a2", () => undefined),
      ).rejects.toThrow("Cannot track more than 1 total users.");
      expect(Date.now() - started).toBeLessThan(2000);
      // The stream backs off as a whole: its consumers see their subscription fail and poll instead.
      expect(held.failureSignal.aborted).toBe(true);
      expect(logs).toHaveLength(1);
    } finally {
      await stream.close();
      await tight.close();
    }
  });
});
