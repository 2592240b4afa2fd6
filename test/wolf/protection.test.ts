import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { dec } from "../../src/core/decimal.ts";
import { buildWolfConfig, type WolfConfigInput } from "../../src/wolf/config.ts";
import type { IocRequest } from "../../src/wolf/port.ts";
import { WolfRunner } from "../../src/wolf/runner.ts";
import { FakePort } from "./fake-port.ts";

const quiet = (l: string) => (process.env.WOLF_TEST_LOG ? console.log(l) : undefined);

/** A fake exchange whose market scans can be made to hang, like a 30 s scan on the real exchange. */
class SlowScanPort extends FakePort {
  private gate: Promise<void> | undefined;
  private release: (() => void) | undefined;
  scanning = false;

  hangScans(): void {
    this.gate = new Promise((r) => {
      this.release = r;
    });
  }

  releaseScans(): void {
    this.release?.();
    this.gate = undefined;
  }

  /** While set, orders wait (a close "in flight"). */
  iocGate: Promise<void> | undefined;

  override async ioc(req: IocRequest) {
    await this.iocGate;
    return super.ioc(req);
  }

  override async markets() {
    this.scanning = true;
    await this.gate;
    return super.markets();
  }

  override async candles(coin: string, interval: string, s: number, e: number) {
    await this.gate;
    return super.candles(coin, interval, s, e);
  }
}

const running: { port: SlowScanPort; runner: WolfRunner }[] = [];
afterEach(async () => {
  for (const { port, runner } of running.splice(0)) {
    port.releaseScans();
    await runner.close();
  }
});

async function withEthLong(extra: WolfConfigInput = {}) {
  const port = new SlowScanPort({ ETH: 2500, SOL: 100, BTC: 60000 });
  const dataDir = mkdtempSync(join(tmpdir(), "wolf-protect-"));
  const config = buildWolfConfig("default", {}, { candle_refresh_s: 0, ...extra });
  const runner = await WolfRunner.open({ port, dataDir, preset: "default", config, log: quiet });
  await runner.tick();
  port.clock += 60_000;
  await runner.tick();
  port.clock += 60_000;
  port.pump("ETH");
  await runner.tick();
  const slot = runner.state.slots[0]!;
  expect(slot).toMatchObject({ status: "active", coin: "ETH", side: "long" });
  running.push({ port, runner });
  return { port, runner, slot };
}

/** Start a tick whose scans hang; resolves once the scan is under way. */
async function tickWithHangingScan(port: SlowScanPort, runner: WolfRunner): Promise<{ tick: Promise<void> }> {
  port.hangScans();
  port.scanning = false;
  port.clock += 60_000;
  const tick = runner.tick();
  for (let i = 0; i < 100 && !port.scanning; i++) await new Promise((r) => setTimeout(r, 5));
  expect(port.scanning).toBe(true);
  return { tick };
}

async function closeOrderWithin(port: FakePort, coin: string, ms: number): Promise<IocRequest | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const o = port.orders.find((x) => x.coin === coin && x.reduceOnly);
    if (o || Date.now() > deadline) return o;
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("WOLF protection acts on every streamed price, never behind a scan", () => {
  it("a streamed price at -40 % ROE sends a reduce-only close within 1 s while a scan hangs (tick 60 s)", async () => {
    const { port, runner, slot } = await withEthLong();
    const { tick } = await tickWithHangingScan(port, runner);
    const entry = Number(slot.entry_price);
    port.setPrice("ETH", entry * (1 - 0.4 / slot.leverage));
    const close = await closeOrderWithin(port, "ETH", 1000);
    expect(close).toMatchObject({ coin: "ETH", side: "sell", reduceOnly: true, size: slot.entry_size });
    port.releaseScans();
    await tick;
    expect(runner.state.slots[0]!.status).toBe("empty");
    expect(runner.state.closed_slots.at(-1)!.close_reason).toMatch(/^hard_stop: ROE -40\.0%/);
  });

  it("the hard stop (-5 % ROE) closes from the stream, not at the next tick", async () => {
    // One price at -6 % ROE is a single DSL breach (3 are needed), so only the hard stop can close.
    const { port, runner, slot } = await withEthLong();
    const { tick } = await tickWithHangingScan(port, runner);
    port.setPrice("ETH", Number(slot.entry_price) * (1 - 0.06 / slot.leverage));
    const close = await closeOrderWithin(port, "ETH", 1000);
    expect(close).toMatchObject({ reduceOnly: true });
    port.releaseScans();
    await tick;
    expect(runner.state.closed_slots.at(-1)!.close_reason).toMatch(/^hard_stop: ROE -6\.0%/);
  });

  it("scans hold back while a close is in flight", async () => {
    const { port, runner, slot } = await withEthLong();
    let release: () => void = () => undefined;
    port.iocGate = new Promise<void>((r) => {
      release = r;
    });
    port.setPrice("ETH", Number(slot.entry_price) * (1 - 0.4 / slot.leverage)); // the close is sent, unanswered
    port.scanning = false;
    port.clock += 60_000;
    const tick = runner.tick();
    await new Promise((r) => setTimeout(r, 100));
    expect(port.scanning).toBe(false);
    release();
    await tick;
    expect(port.scanning).toBe(true);
    expect(runner.state.slots[0]!.status).toBe("empty");
  });

  it("the time-based exits act on a streamed price too (stagnation take-profit)", async () => {
    const { port, runner, slot } = await withEthLong();
    const entry = Number(slot.entry_price);
    port.setPrice("ETH", entry * 1.004); // +4 % ROE: a new high
    const { tick } = await tickWithHangingScan(port, runner);
    port.clock += 61 * 60_000; // no new high for over an hour
    port.setPrice("ETH", entry * 1.0039);
    const close = await closeOrderWithin(port, "ETH", 1000);
    expect(close).toMatchObject({ reduceOnly: true });
    port.releaseScans();
    await tick;
    expect(runner.state.closed_slots.at(-1)!.close_reason).toMatch(/^stagnation_tp/);
  });

  it("a close whose answer is lost is resolved, not resent: one close order, one close booked", async () => {
    const { port, runner, slot } = await withEthLong();
    port.loseAnswers = 1;
    port.setPrice("ETH", Number(slot.entry_price) * (1 - 0.4 / slot.leverage));
    await runner.settled();
    expect(port.orders.filter((o) => o.reduceOnly)).toHaveLength(1);
    expect(runner.state.slots[0]!.status).toBe("empty");
    expect(runner.state.closed_slots).toHaveLength(1);
    expect(runner.state.closed_slots[0]!.exit_price).toBe(port.fills.at(-1)!.price);
    expect(await port.positions()).toEqual([]);
  });

  it("the daily loss limit closes every slot from the stream", async () => {
    const { port, runner, slot } = await withEthLong();
    const { tick } = await tickWithHangingScan(port, runner);
    // Realized losses already near the limit; a small move (-1 % ROE) crosses it.
    runner.state.daily_pnl = String(-(runner.config.daily_loss_limit - 1));
    port.setPrice("ETH", Number(slot.entry_price) * (1 - 0.01 / slot.leverage));
    const close = await closeOrderWithin(port, "ETH", 1000);
    expect(close).toMatchObject({ reduceOnly: true });
    port.releaseScans();
    await tick;
    expect(runner.state.daily_loss_triggered).toBe(true);
    expect(runner.state.closed_slots.at(-1)!.close_reason).toBe("daily_loss_limit");
  });
});

describe("a tick's prices are as old as the tick", () => {
  it("a position adopted while a tick's scan runs is not judged by that tick's older price", async () => {
    const { port, runner } = await withEthLong();
    const { tick } = await tickWithHangingScan(port, runner); // the tick read SOL at 100
    port.clock += 5_000; // the scan takes a while
    port.prices.set("SOL", 150);
    port.pos.set("SOL", { szi: dec(10), entry: dec(150) });
    await runner.reconcile();
    const sol = runner.state.slots.find((s) => s.coin === "SOL")!;
    expect(sol.status).toBe("active");
    port.releaseScans();
    await tick;
    await runner.settled();
    expect(runner.state.slots[sol.slot_id]!.status).toBe("active");
    expect(port.orders.filter((o) => o.coin === "SOL")).toEqual([]);
  });
});
