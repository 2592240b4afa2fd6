import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Alerter } from "../../src/alerts/webhook.ts";
import { PaperGateway } from "../../src/engine/paper-gateway.ts";
import type {
  CancelResult,
  GatewayFill,
  GatewayOrder,
  OrderGateway,
  PlaceRequest,
} from "../../src/engine/ports.ts";
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

/**
 * The paper book as a venue whose account stream pushes fills: `push` delivers them (and says so);
 * `lagging` fills are on the exchange but not pushed yet, so only a read made fresh from the venue sees them.
 */
class PushingVenue implements OrderGateway {
  private listener: (() => void) | undefined;
  private readonly pushed: GatewayFill[] = [];
  readonly lagging: GatewayFill[] = [];
  freshReads = 0;
  /** Called after each cancel (a quote that filled just before it). */
  onCancel: (() => void) | undefined;
  constructor(readonly paper: PaperGateway) {}
  place(orders: readonly PlaceRequest[]) {
    return this.paper.place(orders);
  }
  async cancel(instrument: string, orders: readonly GatewayOrder[]) {
    const r = await this.paper.cancel(instrument, orders);
    this.onCancel?.();
    return r;
  }
  openOrders(instrument: string) {
    return this.paper.openOrders(instrument);
  }
  position(instrument: string) {
    return this.paper.position(instrument);
  }
  async fills(instrument: string, sinceMs: number, opts: { fresh?: boolean } = {}) {
    if (opts.fresh) this.freshReads++;
    const ours = opts.fresh ? [...this.pushed, ...this.lagging] : this.pushed;
    return [
      ...(await this.paper.fills(instrument, sinceMs)),
      ...ours.filter((f) => f.timeMs >= sinceMs),
    ].sort((a, b) => a.timeMs - b.timeMs);
  }
  onFillPushed(_instrument: string, listener: () => void) {
    this.listener = listener;
    return () => {
      this.listener = undefined;
    };
  }
  push(...fills: GatewayFill[]) {
    this.pushed.push(...fills);
    this.listener?.();
  }
}

/**
 * A run with minute-long ticks (the next one never comes within a test) whose first tick buys 1 and
 * leaves a bid resting far below: long 1, its exchange stop resting, waiting for the next tick.
 */
async function longWaitingForTick2() {
  const dir = mkdtempSync(join(tmpdir(), "hl-run-backstop-pushed-"));
  const paper = new PaperGateway();
  const venue = new PushingVenue(paper);
  const stops = new MemoryStops();
  const lines: string[] = [];
  const alerts: string[] = [];
  const alerter: Alerter = { send: (event, text) => alerts.push(`${event}: ${text}`), flush: async () => {} };
  let quoted = false;
  const strategy = ordersStrategy("quoter", (c) => {
    if (quoted) return [];
    quoted = true;
    return [
      { side: "buy", price: c.snapshot.ask, size: 1, tif: "Ioc", tag: "e" },
      { side: "buy", price: Math.round(c.snapshot.mid * 0.97), size: 1, tif: "Gtc", tag: "q" },
    ];
  });
  const engine = dslDryRunEngine(
    {
      strategy,
      paper,
      market: new FakeMarket({ script: () => 2500 }),
      dir,
      maxTicks: 0,
      dsl: runStopConfig("moderate"),
    },
    { gateway: venue, backstops: stops, tickMs: 60_000, log: (l) => lines.push(l), alerter },
  );
  const run = engine.run();
  const until = Date.now() + 5_000;
  while (engine.backstop?.current?.status !== "resting" && Date.now() < until)
    await new Promise((r) => setTimeout(r, 10));
  const stopCloid = engine.backstop?.current?.cloid as `0x${string}`;
  expect(isBackstopCloid("run", stopCloid), lines.join("\n")).toBe(true);
  const [bid] = await paper.openOrders("ETH-PERP");
  expect(bid, lines.join("\n")).toBeDefined();
  const t = Math.max(...(await paper.fills("ETH-PERP", 0)).map((f) => f.timeMs)) + 5_000;
  const fill = (
    f: Partial<GatewayFill> & Pick<GatewayFill, "id" | "side" | "size" | "price">,
  ): GatewayFill => ({
    oid: "0",
    fee: "0",
    timeMs: t,
    ...f,
  });
  const stopFill = (size: string) =>
    fill({ id: "stop", oid: "900", cloid: stopCloid, side: "sell", size, price: "2400" });
  const bidFill = () =>
    fill({
      id: "bid",
      oid: bid!.oid,
      cloid: bid!.cloid,
      side: "buy",
      size: "1",
      price: bid!.price,
      timeMs: t + 1,
    });
  /** The run's result if it ended within `ms`; else stopped, and undefined. */
  const endedWithin = async (ms: number) => {
    const ended = await Promise.race([
      run,
      new Promise<undefined>((r) => setTimeout(() => r(undefined), ms)),
    ]);
    if (!ended) {
      engine.stop();
      await run;
    }
    return ended;
  };
  return { engine, run, paper, venue, stops, lines, alerts, stopCloid, stopFill, bidFill, endedWithin };
}

describe("hl run: the exchange stop's fill pushed between two ticks", () => {
  it("stopped and re-opened by a quote in the same batch: the run stops at once, the new position with its own exchange stop", async () => {
    const r = await longWaitingForTick2();
    r.venue.push(r.stopFill("1"), r.bidFill());
    const ended = await r.endedWithin(3_000);
    expect(ended, r.lines.join("\n")).toMatchObject({
      stopReason: "dsl_stop",
      dslReason: "exchange stop",
      tickCount: 1,
      position: { net_qty: "1" },
    });
    // The filled stop's order is gone; one for the re-opened long rests under a new cloid.
    expect([...r.stops.stops.values()].map((s) => [s.side, s.size])).toEqual([["long", "1"]]);
    expect(r.stops.stops.has(r.stopCloid)).toBe(false);
    expect(r.alerts.filter((a) => a.startsWith("halt"))).toEqual([
      expect.stringContaining("a quote filled before its cancel: position now 1"),
    ]);
  });

  it("a quote filled before its cancel but not pushed yet: the fresh read after the cancel finds it and covers it", async () => {
    const r = await longWaitingForTick2();
    r.venue.onCancel = () => {
      if (r.venue.lagging.length === 0) r.venue.lagging.push(r.bidFill());
    };
    r.venue.push(r.stopFill("1"));
    const ended = await r.endedWithin(3_000);
    expect(ended, r.lines.join("\n")).toMatchObject({ stopReason: "dsl_stop", position: { net_qty: "1" } });
    expect(r.venue.freshReads).toBeGreaterThan(0);
    expect([...r.stops.stops.values()].map((s) => [s.side, s.size])).toEqual([["long", "1"]]);
  });

  it("a partial fill: alerted, the exchange stop resized to what is left at once, the quotes and the run go on", async () => {
    const r = await longWaitingForTick2();
    r.venue.push(r.stopFill("0.4"));
    const until = Date.now() + 3_000;
    while (r.stops.stops.get(r.stopCloid)?.size !== "0.6" && Date.now() < until)
      await new Promise((res) => setTimeout(res, 10));
    expect(r.stops.stops.get(r.stopCloid)?.size, r.lines.join("\n")).toBe("0.6");
    expect(r.alerts).toEqual([
      expect.stringMatching(/^backstop: .*the exchange stop filled: sell 0\.4 at 2400/),
    ]);
    expect(await r.paper.openOrders("ETH-PERP")).toHaveLength(1);
    const ended = await r.endedWithin(200);
    expect(ended).toBeUndefined();
    const result = await r.run;
    expect(result).toMatchObject({ stopReason: "signal", tickCount: 1, position: { net_qty: "0.6" } });
  });
});
