import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AlertEvent, Alerter } from "../../src/alerts/webhook.ts";
import type { HlClient } from "../../src/exchange/index.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { HlWolfPort } from "../../src/wolf/hl-port.ts";
import { openWolfRunner, simPaperClient, until } from "../support/sim-wolf.ts";

let world: SimWorld;
let client: HlClient;

beforeAll(async () => {
  world = await startSimWorld({ seed: 13 });
  client = await simPaperClient(world);
});
afterAll(async () => {
  await client.close();
  await world.close();
});

describe("WOLF on the sim: the price stream", () => {
  it("streams every dex at start; a dropped WebSocket is noticed, alerted, polled, resubscribed, and a breach still closes within 3 s", async () => {
    const opened = await client.marketOrder({ instrument: "ETH-PERP", side: "buy", size: "1" });
    expect(opened.status).toBe("filled");
    const lines: string[] = [];
    const alerts: AlertEvent[] = [];
    const alerter: Alerter = { send: (e) => void alerts.push(e), flush: async () => undefined };
    const runner = await openWolfRunner(
      new HlWolfPort(client),
      mkdtempSync(join(tmpdir(), "wolf-sim-")),
      {},
      {
        log: (l) => lines.push(l),
        alerter,
        feed: { pollMs: 1000, silenceMs: 2000, retryMinMs: 200 },
      },
    );
    try {
      const slot = runner.state.slots.find((s) => s.coin === "ETH")!;
      expect(slot).toMatchObject({ status: "active", side: "long", entry_size: "1" });
      // Streamed prices reach the slot (no tick runs in this test).
      const before = slot.current_price;
      world.setPrice("ETH", String(Number(slot.entry_price) * 1.001));
      await until("a streamed ETH price", 3000, () =>
        runner.state.slots[slot.slot_id]!.current_price !== before ? true : undefined,
      );
      expect(lines.filter((l) => /price stream/.test(l))).toEqual([]);
      expect(runner.state.price_stream).toBe("ok");

      const dropped = Date.now();
      expect(world.faults.dropWebSockets()).toBeGreaterThan(0);
      world.setPrice("ETH", String(Number(slot.entry_price) * 0.96)); // −40 % ROE at 10x
      await until("the position closed", 3000, async () => {
        const st = await client.clearinghouseState();
        return st.assetPositions.some((p) => p.position.coin === "ETH") ? undefined : true;
      });
      expect(Date.now() - dropped).toBeLessThan(3000);
      await until("the close booked", 2000, () =>
        runner.state.slots[slot.slot_id]!.status === "empty" ? true : undefined,
      );
      expect(runner.state.closed_slots.at(-1)!.close_reason).toMatch(/^hard_stop/);
      expect(alerts).toContain("price_stream");
      expect(lines.some((l) => /price stream degraded \(WebSocket connection lost\)/.test(l))).toBe(true);
      await until("the stream restored", 5000, () => (runner.state.price_stream === "ok" ? true : undefined));
    } finally {
      await runner.close();
    }
  });
});

describe("WOLF on the sim: an entry whose answer is lost", () => {
  it("the sim executes the order but answers after the client's timeout: one position, adopted with its size and entry", async () => {
    const slow = await simPaperClient(world, { timeoutMs: 800 });
    const lines: string[] = [];
    const runner = await openWolfRunner(
      new HlWolfPort(slow),
      mkdtempSync(join(tmpdir(), "wolf-sim-")),
      {},
      {
        log: (l) => lines.push(l),
        stream: false,
      },
    );
    try {
      world.faults.add({ kind: "late", endpoint: "exchange", type: "order", delayMs: 2000 });
      const plan = {
        slot_id: 0,
        coin: "SOL",
        direction: "long",
        source: "test",
        score: 90,
        priority: 1,
      } as const;
      await runner.enter({ ...plan, reason: "test entry" });
      expect(runner.state.slots[0]!.status).toBe("pending");
      // While pending, another entry for the coin is not sent (the slot is taken; the coin is held).
      await runner.enter({ ...plan, slot_id: 1, reason: "again" }).catch(() => undefined);
      await runner.settled();
      const positions = (await slow.clearinghouseState()).assetPositions.filter(
        (p) => p.position.coin === "SOL",
      );
      expect(positions).toHaveLength(1);
      const pos = positions[0]!.position;
      const held = runner.state.slots.filter((s) => s.coin === "SOL");
      expect(held).toHaveLength(1);
      expect(held[0]).toMatchObject({ status: "active", side: "long", entry_size: pos.szi });
      expect(Number(held[0]!.entry_price)).toBeCloseTo(Number(pos.entryPx), 3); // the exchange rounds entryPx
      expect(lines.some((l) => /outcome unknown/.test(l))).toBe(true);
    } finally {
      await runner.close();
      await slow.close();
    }
  });
});
