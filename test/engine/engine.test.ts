import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Engine, type EngineOptions, type OrderStats } from "../../src/engine/engine.ts";
import { PaperGateway } from "../../src/engine/paper-gateway.ts";
import type { PlaceOutcome, PlaceRequest } from "../../src/engine/ports.ts";
import type { PositionJson } from "../../src/engine/position.ts";
import { DEFAULT_RISK_LIMITS, type RiskLimits, type RiskState } from "../../src/engine/risk.ts";
import { readKvFile, StateStore } from "../../src/engine/state-store.ts";
import { statusFromKv } from "../../src/engine/status.ts";
import { defaultParams, findStrategy } from "../../src/strategies/catalog.ts";
import { type AnyStrategy, type DecisionContext, defineStrategy } from "../../src/strategies/sdk.ts";
import { FakeMarket } from "./fake-market.ts";

function tmp(): string {
  return mkdtempSync(join(tmpdir(), "hl-engine-"));
}

function setup(
  strategyId: string | AnyStrategy,
  dataDir: string,
  over: Partial<EngineOptions> = {},
  market = new FakeMarket({ seed: 7 }),
  paper = new PaperGateway(),
) {
  const strategy = typeof strategyId === "string" ? findStrategy(strategyId)! : strategyId;
  const lines: string[] = [];
  const opts: EngineOptions = {
    strategy,
    params: defaultParams(strategy),
    instrument: "ETH-PERP",
    market: paper.watch(market),
    gateway: paper,
    dataDir,
    tickMs: 0,
    maxTicks: 20,
    resume: true,
    limits: DEFAULT_RISK_LIMITS,
    requoteBps: 2,
    mode: "dry-run",
    network: "test",
    log: (l) => lines.push(l),
    ...over,
  };
  return { engine: new Engine(opts), paper, lines, market };
}

describe("engine on an in-memory market", () => {
  it("simple_mm quotes, fills, persists and logs trades", async () => {
    const dir = tmp();
    const { engine, lines } = setup("simple_mm", dir, { maxTicks: 60 });
    const r = await engine.run();
    expect(r.ticks).toBe(60);
    expect(r.stats.total_placed).toBeGreaterThan(0);
    expect(r.stats.total_filled).toBeGreaterThan(0);
    const kv = readKvFile(join(dir, "state.db"));
    expect(Object.keys(kv).sort()).toEqual(
      expect.arrayContaining([
        "instrument",
        "order_stats",
        "positions",
        "risk",
        "start_time_ms",
        "strategy_id",
        "tick_count",
      ]),
    );
    const status = statusFromKv(kv);
    expect(status).toMatchObject({
      status: "running",
      engine: "simple_mm",
      tick_count: 60,
      instrument: "ETH-PERP",
    });
    const trades = readFileSync(join(dir, "trades.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(trades.length).toBe(r.stats.total_filled);
    expect(trades[0]).toMatchObject({ instrument: "ETH-PERP", strategy: "simple_mm" });
    expect(typeof trades[0].price).toBe("string");
    expect(lines.some((l) => l.includes("T60"))).toBe(true);
  });
});

interface Stored {
  tick_count: number;
  positions: { house: Record<string, PositionJson>; agents: Record<string, Record<string, PositionJson>> };
  risk: { limits: RiskLimits; state: RiskState };
  order_stats: OrderStats;
  run: { status: string };
}

const kvJson = (dir: string): Stored => {
  const kv = readKvFile(join(dir, "state.db"));
  return Object.fromEntries(Object.entries(kv).map(([k, v]) => [k, JSON.parse(v)])) as unknown as Stored;
};

/** Buys `size` once on the first tick (IOC at the ask), then only records what it is shown. */
function buyOnce(size: number, seen: DecisionContext[]) {
  return defineStrategy({
    id: "spy",
    description: "test",
    type: "signal",
    params: z.object({}),
    init: () => ({ done: false }),
    decide(c, _p, st: { done: boolean }) {
      seen.push(c);
      if (st.done) return { orders: [], state: st };
      return {
        orders: [{ side: "buy", price: c.snapshot.ask, size, tif: "Ioc", tag: "spy" }],
        state: { done: true },
      };
    },
  }) as unknown as AnyStrategy;
}

const constant = (mid: number) => new FakeMarket({ script: () => mid });

describe("predecessor bugs stay fixed", () => {
  it("--max-ticks counts ticks of this run, not restored ones; counters survive a resume", async () => {
    const dir = tmp();
    const first = await setup("simple_mm", dir, { maxTicks: 5 }).engine.run();
    expect(first.tickCount).toBe(5);
    const placed = first.stats.total_placed;
    const fills = first.stats.total_filled;
    expect(placed).toBeGreaterThan(0);
    const second = await setup("simple_mm", dir, { maxTicks: 3 }).engine.run();
    expect(second.ticks).toBe(3);
    expect(second.tickCount).toBe(8);
    expect(second.stats.total_placed).toBeGreaterThanOrEqual(placed);
    expect(second.stats.total_filled).toBeGreaterThanOrEqual(fills);
    const kv = kvJson(dir);
    expect(kv.tick_count).toBe(8);
    expect(kv.order_stats.total_placed).toBe(second.stats.total_placed);
    expect(statusFromKv(readKvFile(join(dir, "state.db")))).toMatchObject({
      tick_count: 8,
      total_orders: second.stats.total_placed,
    });
    // a different strategy on the same state starts fresh
    const other = await setup("grid_mm", dir, { maxTicks: 1 }).engine.run();
    expect(other.tickCount).toBe(1);
  });

  it("a crash between logging fills and saving the cursor does not log those fills twice", async () => {
    const dir = tmp();
    const market = new FakeMarket({ seed: 7 });
    const paper = new PaperGateway();
    await setup("simple_mm", dir, { maxTicks: 10 }, market, paper).engine.run();
    const before = readKvFile(join(dir, "state.db"));
    await setup("simple_mm", dir, { maxTicks: 10 }, market, paper).engine.run();
    // The crash: trades.jsonl holds the second run's fills, state.db is back to before them.
    const store = StateStore.inDir(dir);
    store.save(Object.fromEntries(Object.entries(before).map(([k, v]) => [k, JSON.parse(v)])));
    store.close();
    await setup("simple_mm", dir, { maxTicks: 1 }, market, paper).engine.run();
    const lines = readFileSync(join(dir, "trades.jsonl"), "utf8").trim().split("\n");
    const ids = lines.map((l) => (JSON.parse(l) as { fill_id: string }).fill_id);
    expect(new Set(ids).size).toBe(ids.length);
    const venueFills = await paper.fills("ETH-PERP", 0);
    expect(ids.sort()).toEqual(venueFills.map((f) => f.id).sort());
    expect(kvJson(dir).positions.agents.simple_mm!["ETH-PERP"]!.net_qty).toBe(
      (await paper.position("ETH-PERP")).qty,
    );
  });

  it("unrealized PnL is marked every tick, persisted and reported; drawdown reaches the strategy", async () => {
    const dir = tmp();
    const seen: DecisionContext[] = [];
    const falling = new FakeMarket({ script: (n) => 2500 - n * 10 });
    await setup(buyOnce(2, seen), dir, { maxTicks: 4 }, falling).engine.run();
    const kv = kvJson(dir);
    const pos = kv.positions.agents.spy!["ETH-PERP"]!;
    expect(pos.net_qty).toBe("2");
    expect(Number(pos.unrealized_pnl)).toBeLessThan(-50);
    expect(pos.unrealized_pnl).toBe(kv.positions.house["ETH-PERP"]!.unrealized_pnl);
    const status = statusFromKv(readKvFile(join(dir, "state.db")));
    expect(status).toMatchObject({ position_qty: 2, unrealized_pnl: Number(pos.unrealized_pnl) });
    expect(seen.at(-1)!.risk.drawdownPct).toBeGreaterThan(0);
    expect(seen.at(-1)!.unrealizedPnl).toBeLessThan(0);
  });

  it("market makers rest post-only quotes inside the book and leave them alone while the price holds", async () => {
    const dir = tmp();
    const paper = new PaperGateway();
    const sent: { side: string; price: string; tif: string }[] = [];
    const place = paper.place.bind(paper);
    paper.place = async (orders) => {
      sent.push(...orders);
      return place(orders);
    };
    const r = await setup("simple_mm", dir, { maxTicks: 6 }, constant(2500), paper).engine.run();
    expect(sent).toHaveLength(2);
    expect(sent.every((o) => o.tif === "Alo")).toBe(true);
    const bid = sent.find((o) => o.side === "buy")!;
    const ask = sent.find((o) => o.side === "sell")!;
    expect(Number(bid.price)).toBeLessThan(2500.25); // below the best ask
    expect(Number(ask.price)).toBeGreaterThan(2499.75);
    expect(r.stats.total_cancelled).toBe(2); // only at shutdown
    expect(await paper.openOrders("ETH-PERP")).toEqual([]);
  });

  it("resting quotes that the market trades through are filled and applied from the fills feed", async () => {
    const dir = tmp();
    // flat, then the market drops through the bid
    const r = await setup(
      "simple_mm",
      dir,
      { maxTicks: 4 },
      new FakeMarket({ script: (n) => (n <= 2 ? 2500 : 2490) }),
    ).engine.run();
    expect(r.stats.total_filled).toBeGreaterThanOrEqual(1);
    expect(Number(r.position.net_qty)).toBeGreaterThan(0);
    const trades = readFileSync(join(dir, "trades.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(trades[0]).toMatchObject({
      side: "buy",
      price: "2498.7",
      strategy: "simple_mm",
      fee: expect.any(String),
    });
    expect(trades[0].cloid).toMatch(/^0x[0-9a-f]{32}$/);
  });

  it("a tick without market data is counted and persisted, not lost", async () => {
    const dir = tmp();
    const r = await setup(
      "simple_mm",
      dir,
      { maxTicks: 3 },
      new FakeMarket({ script: (n) => (n === 2 ? 0 : 2500) }),
    ).engine.run();
    expect(r.tickCount).toBe(3);
    expect(kvJson(dir).tick_count).toBe(3);
  });

  it("restart: fills made while down are applied once, the exchange position is adopted, and none are duplicated", async () => {
    const dir = tmp();
    const paper = new PaperGateway();
    const market = constant(2500);
    await setup("hedge_agent", dir, { maxTicks: 2 }, market, paper).engine.run();
    // while the engine is down someone trades on the account
    await paper.place([
      {
        instrument: "ETH-PERP",
        cloid: "0x0000000000000000000000000000abcd",
        side: "buy",
        price: "2500.3",
        size: "2",
        tif: "Ioc",
        reduceOnly: false,
      },
    ]);
    const lines: string[] = [];
    const r = await setup(
      "hedge_agent",
      dir,
      { maxTicks: 1, log: (l) => lines.push(l) },
      market,
      paper,
    ).engine.run();
    expect(lines.some((l) => l.includes("1 fill(s) made while the engine was down"))).toBe(true);
    expect(r.position.net_qty).toBe("2");
    const again = await setup("hedge_agent", dir, { maxTicks: 1 }, market, paper).engine.run();
    expect(again.position.net_qty).toBe("2");
    expect(again.stats.total_filled).toBe(1);
    // a fresh state adopts the exchange's position instead of assuming flat
    const fresh = tmp();
    const adopted = await setup(
      "hedge_agent",
      fresh,
      { maxTicks: 1, resume: false },
      market,
      paper,
    ).engine.run();
    expect(adopted.position.net_qty).toBe("2");
  });

  it("stop() cuts the sleep short, cancels resting quotes and saves state", async () => {
    const dir = tmp();
    const paper = new PaperGateway();
    const { engine } = setup(
      "simple_mm",
      dir,
      { maxTicks: 0, tickMs: 60_000, log: (l) => l.includes("T1 ") && setTimeout(() => engine.stop(), 10) },
      constant(2500),
      paper,
    );
    const t0 = Date.now();
    const r = await engine.run();
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(r.stopReason).toBe("signal");
    expect(await paper.openOrders("ETH-PERP")).toEqual([]);
    expect(kvJson(dir).run.status).toBe("stopped");
  });

  it("a run flapping in and out of reduce-only alerts once, not at every re-entry (again after 30 minutes)", async () => {
    const limits = { ...DEFAULT_RISK_LIMITS, max_drawdown_usd: 5, daily_loss_usd: 5, hard_stop_mult: 1000 };
    const events: string[] = [];
    const alerter = { send: (e: string) => void events.push(e), flush: async () => undefined };
    // Bought at 2500: the mark crosses the $5 loss limit back and forth, one market second per tick.
    const flapping = new FakeMarket({ script: (n) => (n < 2 ? 2500 : n % 2 === 0 ? 2490 : 2500) });
    await setup(buyOnce(1, []), tmp(), { maxTicks: 12, limits, alerter }, flapping).engine.run();
    expect(events.filter((e) => e === "reduce_only")).toEqual(["reduce_only"]);
  });

  it("the reduce-only alert states net PnL in dollars and cents, not every digit of the decimal", async () => {
    const limits = { ...DEFAULT_RISK_LIMITS, max_drawdown_usd: 5, daily_loss_usd: 5, hard_stop_mult: 1000 };
    const texts: string[] = [];
    const alerter = { send: (_e: string, t: string) => void texts.push(t), flush: async () => undefined };
    const falling = new FakeMarket({ script: (n) => 2500.123457 - n * 10.987653 });
    await setup(buyOnce(1.37, []), tmp(), { maxTicks: 10, limits, alerter }, falling).engine.run();
    expect(texts).toHaveLength(1);
    expect(texts[0]).toMatch(
      /^risk limit reached: reduce-only until it clears \(net PnL \$-\d+\.\d{2}, position 1\.37\)$/,
    );
  });

  it("a hard risk breach cancels everything and stops; it stays halted on resume until --fresh", async () => {
    const dir = tmp();
    const limits = { ...DEFAULT_RISK_LIMITS, max_drawdown_usd: 5, daily_loss_usd: 5 };
    const falling = () => new FakeMarket({ script: (n) => 2500 - n * 10 });
    const seen: DecisionContext[] = [];
    const alerts: [string, string][] = [];
    const alerter = {
      send: (e: string, t: string) => void alerts.push([e, t]),
      flush: async () => undefined,
    };
    const r = await setup(buyOnce(1, seen), dir, { maxTicks: 20, limits, alerter }, falling()).engine.run();
    expect(r.stopReason).toBe("halted");
    // The operator hears of the hard stop.
    expect(alerts.map(([e]) => e)).toEqual(["halt"]);
    expect(alerts[0]![1]).toMatch(/^risk hard stop: .*; cancelling all orders and stopping$/);
    // A breach short of the hard stop: one reduce-only alert for the whole episode, not one a tick.
    const soft: string[] = [];
    const softAlerter = { send: (e: string) => void soft.push(e), flush: async () => undefined };
    await setup(
      buyOnce(1, []),
      tmp(),
      { maxTicks: 10, limits: { ...limits, hard_stop_mult: 1000 }, alerter: softAlerter },
      falling(),
    ).engine.run();
    expect(soft).toEqual(["reduce_only"]);
    expect(r.ticks).toBeLessThan(20);
    expect(kvJson(dir).risk.state.halted).toBe(true);
    expect(kvJson(dir).run.status).toBe("halted");
    const again = await setup(buyOnce(1, []), dir, { maxTicks: 5, limits }, falling()).engine.run();
    expect(again.ticks).toBe(0);
    expect(again.stopReason).toBe("halted");
    const fresh = await setup(
      buyOnce(1, []),
      dir,
      { maxTicks: 1, resume: false },
      constant(2500),
    ).engine.run();
    expect(fresh.ticks).toBe(1);
  });

  it("the limits of this run are the ones in force and stored (stored ones never override config)", async () => {
    const dir = tmp();
    await setup("simple_mm", dir, { maxTicks: 1 }).engine.run();
    await setup("simple_mm", dir, {
      maxTicks: 1,
      limits: { ...DEFAULT_RISK_LIMITS, max_order_size: 0.5 },
    }).engine.run();
    expect(kvJson(dir).risk.limits.max_order_size).toBe(0.5);
  });
});

describe("protect-only (entries disabled)", () => {
  it("never adds to the position: a flat market maker sends nothing, and its risk mode shows reduce-only", async () => {
    const normal = await setup("simple_mm", tmp(), { maxTicks: 5 }).engine.run();
    expect(normal.stats.total_placed).toBeGreaterThan(0);
    const { engine, lines } = setup("simple_mm", tmp(), { maxTicks: 5, entriesDisabled: true });
    const r = await engine.run();
    expect(r.stats.total_placed).toBe(0);
    expect(r.position).toMatchObject({ net_qty: "0" });
    expect(lines.filter((l) => l.includes("risk: REDUCE"))).toHaveLength(5);
  });
});

/** A paper venue with a dead man's switch that records every arming (null = disarm). */
class SwitchGateway extends PaperGateway {
  calls: (number | null)[] = [];
  refuse = false;
  async scheduleCancelAll(atMs: number | null): Promise<void> {
    if (this.refuse) throw new Error("Cannot set scheduled cancel time until enough volume traded");
    this.calls.push(atMs);
  }
}

describe("dead man's switch", () => {
  it("armed while quotes rest, renewed when half its window is gone, disarmed on the way out", async () => {
    const market = new FakeMarket({ seed: 7 }); // one second of market time per tick
    const gw = new SwitchGateway();
    const { engine } = setup("simple_mm", tmp(), { maxTicks: 40, deadManMs: 20_000 }, market, gw);
    await engine.run();
    const armed = gw.calls.filter((c): c is number => c !== null);
    expect(armed.length).toBeGreaterThanOrEqual(3);
    // Each renewal comes once at most half of the window was left, and always before it ran out.
    for (let i = 1; i < armed.length; i++) {
      const gap = armed[i]! - armed[i - 1]!;
      expect(gap).toBeGreaterThanOrEqual(10_000);
      expect(gap).toBeLessThan(20_000);
    }
    expect(gw.calls.at(-1)).toBeNull();
  });

  it("is set at least 5 s after the exchange receives it, even with a 5 s window and a lagging snapshot", async () => {
    // Hyperliquid refuses a time under 5 s from its receipt; the snapshot's time is 3 s old here.
    class StrictSwitch extends SwitchGateway {
      override async scheduleCancelAll(atMs: number | null): Promise<void> {
        if (atMs !== null && atMs < Date.now() + 5_000)
          throw new Error("Scheduled cancel time too early, must be at least 5 seconds from now.");
        this.calls.push(atMs);
      }
    }
    const gw = new StrictSwitch();
    const market = new FakeMarket({ seed: 7, t0: Date.now() - 3_000 });
    const { engine, lines } = setup("simple_mm", tmp(), { maxTicks: 1, deadManMs: 5_000 }, market, gw);
    await engine.run();
    expect(lines.filter((l) => l.includes("dead man's switch refused"))).toEqual([]);
    expect(gw.calls.filter((c) => c !== null).length).toBeGreaterThanOrEqual(1);
  });

  it("off by default; a venue that refuses it is reported once and trading goes on", async () => {
    const off = new SwitchGateway();
    await setup("simple_mm", tmp(), { maxTicks: 5 }, new FakeMarket({ seed: 7 }), off).engine.run();
    expect(off.calls).toEqual([]);

    const refusing = new SwitchGateway();
    refusing.refuse = true;
    const { engine, lines } = setup(
      "simple_mm",
      tmp(),
      { maxTicks: 10, deadManMs: 20_000 },
      new FakeMarket({ seed: 7 }),
      refusing,
    );
    const r = await engine.run();
    expect(r.ticks).toBe(10);
    expect(lines.filter((l) => l.includes("dead man's switch refused"))).toHaveLength(1);
  });
});

describe("dead man's switch window", () => {
  it("defaults on for live trading only, and must outlast two ticks", async () => {
    const { deadManSeconds } = await import("../../src/engine/runner.ts");
    expect(deadManSeconds({ tickSeconds: 10 }, "live")).toBe(60);
    expect(deadManSeconds({ tickSeconds: 30 }, "live")).toBe(180);
    expect(deadManSeconds({ tickSeconds: 10 }, "mock")).toBe(0);
    expect(deadManSeconds({ tickSeconds: 10 }, "dry-run")).toBe(0);
    expect(deadManSeconds({ tickSeconds: 10, deadManSeconds: 0 }, "live")).toBe(0);
    expect(deadManSeconds({ tickSeconds: 1, deadManSeconds: 8 }, "mock")).toBe(8);
    expect(() => deadManSeconds({ tickSeconds: 10, deadManSeconds: 20 }, "live")).toThrow(
      "--dead-man 20 s is too short for 10 s ticks: at least 25 s (2 ticks + 5 s), or 0 for off",
    );
  });
});

describe("engine journal and memory", () => {
  it("each time the position returns to flat a journal entry is written; sessions are remembered", async () => {
    const { readJournal } = await import("../../src/review/journal.ts");
    const { readMemory } = await import("../../src/review/memory.ts");
    const { StrategyRecords } = await import("../../src/review/strategy-records.ts");
    const root = tmp();
    const dir = join(root, "cli");
    // Buys one on the first tick, sells it back on the second: one round trip.
    const roundTrip = defineStrategy({
      id: "round_trip",
      description: "test",
      type: "signal",
      params: z.object({}),
      init: () => ({ tick: 0 }),
      decide(c, _p, st: { tick: number }) {
        const tick = st.tick + 1;
        const side = tick === 1 ? "buy" : tick === 2 ? "sell" : undefined;
        const price = side === "buy" ? c.snapshot.ask : c.snapshot.bid;
        return {
          orders: side ? [{ side, price, size: 1, tif: "Ioc", tag: "rt" }] : [],
          state: { tick },
        };
      },
    }) as unknown as AnyStrategy;
    const records = new StrategyRecords({
      dataDir: root,
      strategy: "round_trip",
      instrument: "ETH-PERP",
      log: () => undefined,
    });
    const { engine } = setup(roundTrip, dir, { maxTicks: 4, records });
    await engine.run();
    const journal = readJournal({ dataDir: root });
    expect(journal).toHaveLength(1);
    expect(journal[0]).toMatchObject({
      instrument: "ETH-PERP",
      direction: "long",
      size: "1",
      entry_source: "strategy:round_trip",
      close_reason: "strategy_exit",
    });
    expect(journal[0]!.entry_reasoning).toContain("via strategy:round_trip");
    expect(readMemory({ dataDir: root, event_type: "session_start" })).toHaveLength(1);
    const end = readMemory({ dataDir: root, event_type: "session_end" });
    expect(end[0]!.payload).toMatchObject({ tick_count: 4, active_slots: 0, total_trades: 2 });
  });
});

/** A venue that halted trading: every order is refused with the exchange's text. */
class HaltedGateway extends PaperGateway {
  override async place(orders: readonly PlaceRequest[]): Promise<PlaceOutcome[]> {
    return orders.map(() => ({ status: "rejected", message: "Trading is halted." }));
  }
}

/** The fake market, whose `meta` says whether it is delisted (and counts the looks). */
class ListedMarket extends FakeMarket {
  looks = 0;
  constructor(private readonly isDelisted: boolean) {
    super({ seed: 7 });
  }
  async delisted(): Promise<boolean> {
    this.looks += 1;
    return this.isDelisted;
  }
}

describe("a halted market", () => {
  it("halted for a while (not delisted): one line, meta asked once, the run goes on", async () => {
    const market = new ListedMarket(false);
    const { engine, lines } = setup("simple_mm", tmp(), { maxTicks: 10 }, market, new HaltedGateway());
    const r = await engine.run();
    expect(r.stopReason).toBe("max_ticks");
    expect(market.looks).toBe(1);
    expect(lines.filter((l) => /halted trading/.test(l))).toEqual([
      "T1 ETH-PERP: the exchange has halted trading (Trading is halted.); no new orders for 60 min, closing orders tried once a minute",
    ]);
  });

  it("delisted (meta says so): a flat run stops at once with one line", async () => {
    const market = new ListedMarket(true);
    const { engine, lines } = setup("simple_mm", tmp(), { maxTicks: 10 }, market, new HaltedGateway());
    const r = await engine.run();
    expect(r.stopReason).toBe("delisted");
    expect(r.ticks).toBe(1);
    expect(lines.filter((l) => /halted|delisted/.test(l) && !/exchange refused:/.test(l))).toEqual([
      "T1 ETH-PERP: the exchange delisted the market; no order can be placed there again, stopping",
    ]);
  });
});
