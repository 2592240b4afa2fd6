import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PaperGateway } from "../../src/engine/paper-gateway.ts";
import type { CancelResult, GatewayOrder } from "../../src/engine/ports.ts";
import { readStopSignal } from "../../src/exchange/stoppable-reads.ts";
import { isBackstopCloid } from "../../src/guard/backstop.ts";
import type { BackstopPort, RestingStop, StopSpec } from "../../src/guard/backstops.ts";
import { runStopConfig } from "../../src/guard/position-stop.ts";
import { dslDryRunEngine, ordersStrategy } from "../support/dsl-engine.ts";
import { FakeMarket } from "./fake-market.ts";

/** An exchange that keeps stop orders in memory, with a log of what it was asked. */
class MemoryStops implements BackstopPort {
  stops = new Map<string, RestingStop & { side: string }>();
  asked: string[] = [];
  private oid = 1;
  async szDecimals(): Promise<number> {
    return 4;
  }
  async placeStop(s: StopSpec) {
    this.asked.push(`place ${s.side} ${s.size} @ ${s.triggerPx}`);
    const oid = this.oid++;
    this.stops.set(s.cloid, {
      coin: s.coin,
      cloid: s.cloid,
      oid,
      size: s.size,
      triggerPx: s.triggerPx,
      side: s.side,
    });
    return { status: "resting" as const, oid };
  }
  async modifyStop(s: StopSpec) {
    this.asked.push(`modify ${s.size} @ ${s.triggerPx}`);
    const oid = this.oid++;
    this.stops.set(s.cloid, {
      coin: s.coin,
      cloid: s.cloid,
      oid,
      size: s.size,
      triggerPx: s.triggerPx,
      side: s.side,
    });
    return { status: "resting" as const, oid };
  }
  async cancelStop(_coin: string, cloid: `0x${string}`) {
    this.asked.push("cancel");
    this.stops.delete(cloid);
  }
  async restingStops() {
    return [...this.stops.values()];
  }
  async hasPosition() {
    return true;
  }
}

/** Buys 1 once, then holds. */
const buyOnce = () =>
  ordersStrategy("buyer", (c) =>
    c.positionQty === 0 ? [{ side: "buy", price: c.snapshot.ask, size: 1, tif: "Ioc", tag: "e" }] : [],
  );

describe("hl run: the DSL-guarded position keeps a stop on the exchange", () => {
  it("placed once the position exists, below the floor, and cancelled when the DSL stop closes it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hl-run-backstop-"));
    const market = new FakeMarket({ script: (step) => (step < 8 ? 2500 : 2400) });
    const paper = new PaperGateway();
    const stops = new MemoryStops();
    const engine = dslDryRunEngine(
      {
        strategy: buyOnce(),
        paper,
        market,
        dir,
        maxTicks: 30,
        dsl: runStopConfig("moderate", { breach_interval_ms: 0, phase1_max_breaches: 2 }),
      },
      { backstops: stops },
    );
    const r = await engine.run();
    expect(r.stopReason).toBe("dsl_stop");
    const placed = stops.asked.find((a) => a.startsWith("place"))!;
    // Long 1; moderate's phase-1 floor 3 % under the high water (about 2500), then the 0.5 % margin.
    const [, side, size, px] = /^place (\w+) (\S+) @ (\S+)$/.exec(placed)!;
    expect([side, size]).toEqual(["long", "1"]);
    expect(Number(px)).toBeCloseTo(2500 * 0.97 * 0.995, -1);
    expect(stops.asked.filter((a) => a.startsWith("place"))).toHaveLength(1);
    expect(stops.asked.at(-1)).toBe("cancel");
    expect(stops.stops.size).toBe(0);
    expect([...stops.asked].every((a) => !a.startsWith("modify"))).toBe(true);
    expect(isBackstopCloid("run", engine.backstop?.current?.cloid)).toBe(true);
  });

  it("follows the tick's own fills at once: a position grown by the strategy's IOC is covered in full before the next tick", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hl-run-backstop-"));
    const market = new FakeMarket({ script: () => 2500 });
    const stops = new MemoryStops();
    // Buys 1, then 1 more: long 1 after tick 1, long 2 after tick 2.
    const buyTwice = ordersStrategy("buyer", (c) =>
      c.positionQty < 2 ? [{ side: "buy", price: c.snapshot.ask, size: 1, tif: "Ioc", tag: "e" }] : [],
    );
    const engine = dslDryRunEngine(
      {
        strategy: buyTwice,
        paper: new PaperGateway(),
        market,
        dir,
        maxTicks: 2,
        dsl: runStopConfig("moderate"),
      },
      { backstops: stops },
    );
    const r = await engine.run();
    expect(r.position.net_qty).toBe("2");
    expect([...stops.stops.values()].map((s) => [s.side, s.size])).toEqual([["long", "2"]]);
    // placed in the tick that opened the position, resized in the tick that grew it
    expect(stops.asked.map((a) => a.split(" @")[0])).toEqual(["place long 1", "modify 2"]);
  });

  it("a quote that fills just before the shutdown cancels it: the stop left resting covers the whole position", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hl-run-backstop-"));
    /** A book whose resting bids are hit by a print as the run cancels them at its stop. */
    class HitOnCancel extends PaperGateway {
      override async cancel(instrument: string, orders: readonly GatewayOrder[]): Promise<CancelResult> {
        const print = { id: "hit", side: "sell" as const, sz: 1_000, timeMs: 2_000_000_000_000 };
        this.observeTrades(instrument, []);
        for (const o of orders) this.observeTrades(instrument, [{ ...print, px: Number(o.price) }]);
        return super.cancel(instrument, orders);
      }
    }
    const stops = new MemoryStops();
    // Buys 1, and keeps a bid of 1 resting under the book.
    const buyAndBid = ordersStrategy("buyer_bid", (c) => [
      ...(c.positionQty === 0
        ? [{ side: "buy" as const, price: c.snapshot.ask, size: 1, tif: "Ioc" as const, tag: "e" }]
        : []),
      { side: "buy", price: c.snapshot.bid - 5, size: 1, tif: "Gtc", tag: "bid" },
    ]);
    const engine = dslDryRunEngine(
      {
        strategy: buyAndBid,
        paper: new HitOnCancel(),
        market: new FakeMarket({ script: () => 2500 }),
        dir,
        maxTicks: 2,
        dsl: runStopConfig("moderate"),
      },
      { backstops: stops },
    );
    const r = await engine.run();
    expect(r.position.net_qty).toBe("2");
    expect([...stops.stops.values()].map((s) => [s.side, s.size])).toEqual([["long", "2"]]);
  });

  it("a stop asked while the position's exchange stop is being placed does not cut it: the stop stays resting", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hl-run-backstop-"));
    // Ctrl-C lands as the stop order goes out; a read the placing makes would see the run's stop.
    class StoppedWhilePlacing extends MemoryStops {
      stopRun: () => void = () => undefined;
      override async placeStop(spec: StopSpec) {
        this.stopRun();
        if (readStopSignal()?.aborted) throw new Error("read given up: the run is stopping");
        return super.placeStop(spec);
      }
    }
    const stops = new StoppedWhilePlacing();
    const engine = dslDryRunEngine(
      {
        strategy: buyOnce(),
        paper: new PaperGateway(),
        market: new FakeMarket({ script: () => 2500 }),
        dir,
        maxTicks: 30,
        dsl: runStopConfig("moderate", { breach_interval_ms: 0 }),
      },
      { backstops: stops },
    );
    stops.stopRun = () => engine.stop();
    const r = await engine.run();
    expect(r.stopReason).toBe("signal");
    expect(r.position.net_qty).toBe("1");
    // The position is left as it is, its stop resting on the exchange.
    expect([...stops.stops.values()]).toEqual([expect.objectContaining({ side: "long", size: "1" })]);
  });

  it("the dead man's switch is never armed while the run keeps exchange stops, and that is said once at start", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hl-run-backstop-dms-"));
    /** A venue with a switch that records every arming. */
    class SwitchGateway extends PaperGateway {
      calls: (number | null)[] = [];
      async scheduleCancelAll(atMs: number | null): Promise<void> {
        this.calls.push(atMs);
      }
    }
    const paper = new SwitchGateway();
    const lines: string[] = [];
    // Buys 1, then keeps a take-profit order resting: the switch would be armed for it.
    const buyThenRest = ordersStrategy("buyer_tp", (c) => [
      c.positionQty === 0
        ? { side: "buy", price: c.snapshot.ask, size: 1, tif: "Ioc", tag: "e" }
        : { side: "sell", price: c.snapshot.ask + 10, size: 1, tif: "Gtc", tag: "tp" },
    ]);
    const engine = dslDryRunEngine(
      {
        strategy: buyThenRest,
        paper,
        market: new FakeMarket({ script: () => 2500 }),
        dir,
        maxTicks: 10,
        dsl: runStopConfig("moderate", {}),
      },
      { log: (l) => lines.push(l), deadManMs: 20_000, backstops: new MemoryStops() },
    );
    await engine.run();
    expect(paper.calls).toEqual([]);
    expect(lines.filter((l) => l.startsWith("dead man's switch off"))).toHaveLength(1);
    expect(engine.backstop?.current).toBeTruthy();
  });
});
