import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { AlertEvent, Alerter } from "../../src/alerts/webhook.ts";
import type { HlClient } from "../../src/exchange/index.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { HlWolfPort } from "../../src/wolf/hl-port.ts";
import { openWolfRunner, simPaperClient } from "../support/sim-wolf.ts";

/** WOLF holding a slot in a market the exchange delists: the settlement closes the slot, once. */

let world: SimWorld;
let client: HlClient;
beforeAll(async () => {
  world = await startSimWorld({ seed: 31, historyDays: 0, liveCoins: ["ETH"] });
  client = await simPaperClient(world);
});
afterAll(async () => {
  await client.close();
  await world.close();
});

it("closes the slot from the Settlement fill, records it, alerts once and sends no order there again", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "wolf-delist-"));
  const alerts: { event: AlertEvent; text: string }[] = [];
  const alerter: Alerter = {
    send: (event, text) => alerts.push({ event, text }),
    flush: async () => undefined,
  };
  const port = new HlWolfPort(client);
  let ordersAfter: number | undefined;
  const user = client.address!.toLowerCase();
  const exchange = world.venue.exchange.bind(world.venue);
  world.venue.exchange = (action, from, nonce) => {
    if (ordersAfter !== undefined && from.toLowerCase() === user && action.type === "order") ordersAfter++;
    return exchange(action, from, nonce);
  };
  const runner = await openWolfRunner(port, dataDir, {}, { stream: false, alerter });
  try {
    await runner.enter({
      slot_id: 0,
      coin: "ETH",
      direction: "long",
      source: "test",
      score: 90,
      priority: 1,
      reason: "test entry",
    });
    await runner.settled();
    const size = runner.state.slots[0]!.entry_size;
    expect(runner.state.slots[0]!.status).toBe("active");

    const { settlementPx } = world.venue.delist("ETH");
    ordersAfter = 0;
    alerts.length = 0;
    // The slot's guards see prices and the runner reconciles, as its ticks would.
    await runner.reconcile();
    await runner.settled();

    expect(runner.state.slots[0]!.status).toBe("empty");
    const closed = runner.state.closed_slots.at(-1)!;
    expect(closed).toMatchObject({ instrument: "ETH-PERP", exit_price: settlementPx });
    expect(closed.close_reason).toMatch(/delisted/);
    const trades = readFileSync(join(dataDir, "wolf", "trades.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { side: string; price: string; quantity: string });
    expect(trades.at(-1)).toMatchObject({ side: "sell", price: settlementPx, quantity: size });
    expect(alerts.map((a) => a.event)).toEqual(["exit"]);
    await runner.reconcile();
    await runner.settled();
    expect(ordersAfter).toBe(0);
    expect(alerts).toHaveLength(1);
  } finally {
    await runner.close();
  }
}, 20_000);
