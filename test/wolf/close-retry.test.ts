import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
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
async function wolfOver(positions: Record<string, number>) {
  const port = new FakePort({ ETH: 2500, SOL: 100, BTC: 60_000 });
  for (const [coin, szi] of Object.entries(positions))
    port.pos.set(coin, { szi: dec(szi), entry: dec(port.prices.get(coin)!) });
  const runner = await WolfRunner.open({
    port,
    dataDir: mkdtempSync(join(tmpdir(), "wolf-retry-")),
    preset: "default",
    config: buildWolfConfig("default", {}, { candle_refresh_s: 0 }),
    log: quiet,
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
