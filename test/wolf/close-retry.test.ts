import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Alerter } from "../../src/alerts/webhook.ts";
import { dec } from "../../src/core/decimal.ts";
import { buildWolfConfig } from "../../src/wolf/config.ts";
import { WolfRunner } from "../../src/wolf/runner.ts";
import { FakePort } from "./fake-port.ts";

const quiet = (l: string) => (process.env.WOLF_TEST_LOG ? console.log(l) : undefined);
const open: WolfRunner[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) await r.close();
});

/** WOLF started over positions already on the exchange (adopted into slots, guarded from the stream). */
async function wolfOver(positions: Record<string, number>, alerter?: Alerter) {
  const port = new FakePort({ ETH: 2500, SOL: 100, BTC: 60_000 });
  for (const [coin, szi] of Object.entries(positions))
    port.pos.set(coin, { szi: dec(szi), entry: dec(port.prices.get(coin)!) });
  const runner = await WolfRunner.open({
    port,
    dataDir: mkdtempSync(join(tmpdir(), "wolf-retry-")),
    preset: "default",
    config: buildWolfConfig("default", {}, { candle_refresh_s: 0 }),
    log: quiet,
    ...(alerter ? { alerter } : {}),
  });
  open.push(runner);
  return { port, runner };
}

const closes = (port: FakePort, coin: string) => port.orders.filter((o) => o.coin === coin && o.reduceOnly);

describe("a close that fails is retried on the next price, not the next tick", () => {
  it("a refused close goes out again on a later streamed price after a short back-off (≤ 1 s), with no tick", async () => {
    const { port, runner } = await wolfOver({ ETH: 1 });
    port.refusals = ["Too many requests"];
    port.setPrice("ETH", 2400); // −40 % ROE at 10x: hard stop
    await runner.settled();
    expect(closes(port, "ETH")).toHaveLength(1);
    expect(runner.state.slots[0]!.status).toBe("closing");
    // Within the back-off: the next price does not hammer the exchange.
    port.setPrice("ETH", 2399);
    await runner.settled();
    expect(closes(port, "ETH")).toHaveLength(1);
    // A second later, the next price retries, and the close completes.
    port.clock += 1_000;
    port.setPrice("ETH", 2398);
    await runner.settled();
    expect(closes(port, "ETH")).toHaveLength(2);
    expect(runner.state.slots[0]!.status).toBe("empty");
    expect(await port.positions()).toEqual([]);
  });

  it("the daily loss limit retries a slot that is already closing, too", async () => {
    const { port, runner } = await wolfOver({ ETH: 1, SOL: 10 });
    const eth = runner.state.slots.find((s) => s.coin === "ETH")!;
    port.refusals = ["Too many requests"];
    port.setPrice("ETH", 2400);
    await runner.settled();
    expect(runner.state.slots[eth.slot_id]!.status).toBe("closing");
    expect(closes(port, "ETH")).toHaveLength(1);
    // Realized losses near the limit; a small SOL move crosses it. No ETH price arrives.
    runner.state.daily_pnl = String(-(runner.config.daily_loss_limit - 1));
    port.setPrice("SOL", 99);
    await runner.settled();
    expect(runner.state.daily_loss_triggered).toBe(true);
    expect(closes(port, "ETH")).toHaveLength(2);
    expect(await port.positions()).toEqual([]);
  });
});

describe("a close refused because the exchange halted the market", () => {
  it("keeps the slot closing, alerts once, and asks again once a minute instead of every second", async () => {
    const alerts: string[] = [];
    const alerter: Alerter = { send: (_e, text) => void alerts.push(text), flush: async () => undefined };
    const { port, runner } = await wolfOver({ ETH: 1 }, alerter);
    port.refusals = Array.from({ length: 10 }, () => "Trading is halted.");
    port.setPrice("ETH", 2400); // hard stop
    await runner.settled();
    expect(closes(port, "ETH")).toHaveLength(1);
    expect(runner.state.slots[0]!.status).toBe("closing");
    const halted = alerts.filter((a) => /halted/i.test(a));
    expect(halted).toHaveLength(1);
    expect(halted[0]).toMatch(/ETH/);
    // Seconds later the market is still halted: no close goes out on these prices.
    for (let i = 0; i < 5; i++) {
      port.clock += 5_000;
      port.setPrice("ETH", 2399 - i);
      await runner.settled();
    }
    expect(closes(port, "ETH")).toHaveLength(1);
    // A minute on, one more try; still halted: still closing, no second alert.
    port.clock += 35_000;
    port.setPrice("ETH", 2390);
    await runner.settled();
    expect(closes(port, "ETH")).toHaveLength(2);
    expect(runner.state.slots[0]!.status).toBe("closing");
    expect(alerts.filter((a) => /halted/i.test(a))).toHaveLength(1);
    // The market trades again: the next try a minute later closes the slot.
    port.refusals = [];
    port.clock += 60_000;
    port.setPrice("ETH", 2391);
    await runner.settled();
    expect(closes(port, "ETH")).toHaveLength(3);
    expect(runner.state.slots[0]!.status).toBe("empty");
  });
});
