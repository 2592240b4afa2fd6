import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { setLogSink } from "../../src/core/log.ts";
import type { HlClient } from "../../src/exchange/index.ts";
import { WS_LIMITS } from "../../src/sim/server/ws-limits.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { HlWolfPort } from "../../src/wolf/hl-port.ts";
import { openWolfRunner, simPaperClient, until } from "../support/sim-wolf.ts";

let world: SimWorld;
let client: HlClient;

beforeAll(async () => {
  // One connection per IP: the test's own connection takes it, so WOLF's stream is refused.
  world = await startSimWorld({
    seed: 13,
    historyDays: 0,
    liveCoins: ["ETH"],
    wsLimits: { ...WS_LIMITS, connections: 1 },
  });
  client = await simPaperClient(world);
});
afterAll(async () => {
  await client.close();
  await world.close();
});

describe("WOLF on the sim: its price stream refused over the IP's connection limit", () => {
  it("logs the refusal once, guards on polled prices without reconnecting in a loop, and still closes a breach", async () => {
    const holder = new WebSocket(world.wsUrl);
    await new Promise((resolve, reject) => {
      holder.once("open", resolve);
      holder.once("error", reject);
    });
    const events: string[] = [];
    const previous = setLogSink({ write: (line) => void events.push(line) });
    const lines: string[] = [];
    const opened = await client.marketOrder({ instrument: "ETH-PERP", side: "buy", size: "1" });
    expect(opened.status).toBe("filled");
    const runner = await openWolfRunner(
      new HlWolfPort(client),
      mkdtempSync(join(tmpdir(), "wolf-refused-")),
      {},
      { log: (l) => lines.push(l), feed: { pollMs: 500, silenceMs: 1000, retryMinMs: 100, retryMaxMs: 200 } },
    );
    try {
      const slot = runner.state.slots.find((s) => s.coin === "ETH")!;
      expect(runner.state.price_stream).toBe("degraded");
      expect(lines.some((l) => /price stream degraded .*Cannot open more than 1 connections/.test(l))).toBe(
        true,
      );

      world.setPrice("ETH", String(Number(slot.entry_price) * 0.96)); // −40 % ROE at 10x
      await until("the position closed on polled prices", 3000, async () => {
        const st = await client.clearinghouseState();
        return st.assetPositions.some((p) => p.position.coin === "ETH") ? undefined : true;
      });
      // The feed keeps resubscribing every 100–200 ms; the stream connected once (refused) and then waits.
      await new Promise((r) => setTimeout(r, 1000));
      const use = world.wsLimits().addresses.find((a) => a.address === "127.0.0.1")!;
      expect(use.newConnectionsLastMinute).toBe(2);
      expect(events.filter((l) => l.includes('"ws_refused"'))).toHaveLength(1);
    } finally {
      setLogSink(previous);
      holder.close();
      await runner.close();
    }
  });
});
