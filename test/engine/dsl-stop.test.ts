import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PaperGateway } from "../../src/engine/paper-gateway.ts";
import { RunStop } from "../../src/engine/run-stop.ts";
import { runStopConfig, stepRunStop } from "../../src/guard/position-stop.ts";
import { loadGuard } from "../../src/guard/store.ts";
import { readAllJournalEntries } from "../../src/review/journal.ts";
import { StrategyRecords } from "../../src/review/strategy-records.ts";
import { dslDryRunEngine, ordersStrategy } from "../support/dsl-engine.ts";
import { FakeMarket } from "./fake-market.ts";

const tmp = () => mkdtempSync(join(tmpdir(), "hl-dsl-stop-"));
const fast = runStopConfig("moderate", { breach_interval_ms: 0, phase1_max_breaches: 2 });

/** Buys 1 at once, then keeps a bid resting far below (which the stop must cancel) and buys again whenever flat. */
const buyer = () =>
  ordersStrategy("buyer", (c) => [
    { side: "buy", price: c.snapshot.mid * 0.9, size: 1, tif: "Alo", tag: "b" },
    ...(c.positionQty === 0
      ? [{ side: "buy" as const, price: c.snapshot.ask, size: 1, tif: "Ioc" as const, tag: "e" }]
      : []),
  ]);

describe("DSL stop composed into a strategy run", () => {
  it("ratchets on the position's price and flattens it on a breach (pure step)", () => {
    const ids = { positionId: "run:x:ETH-PERP", instrument: "ETH-PERP" };
    const long = { qty: "2", entry: 100 };
    let s = stepRunStop(fast, ids, null, long, 100, 1);
    expect(s.guard?.config.direction).toBe("long");
    s = stepRunStop(fast, ids, s.guard, long, 104, 2); // +4 % × 10x = 40 % ROE: tier 2 locks 22 %
    expect(s.guard?.state.tier_index).toBe(2);
    expect(s.close).toBeNull();
    s = stepRunStop(fast, ids, s.guard, long, 102, 3); // below the 22 % lock (102.2): first breach
    expect(s.close).toBeNull();
    s = stepRunStop(fast, ids, s.guard, long, 102, 4);
    expect(s.close?.reason).toMatch(/^Phase 2 close/);
    // A short is guarded the other way round; a flat position has no guard.
    const short = stepRunStop(fast, ids, null, { qty: "-1", entry: 100 }, 99, 5);
    expect(short.guard?.config.direction).toBe("short");
    expect(short.guard?.state.high_water).toBe(99);
    expect(stepRunStop(fast, ids, s.guard, { qty: "0", entry: 0 }, 99, 6).guard).toBeNull();
  });

  it("keeps its high water across a restart (guard file)", () => {
    const dir = tmp();
    const first = new RunStop(fast, dir, "run:x:ETH-PERP", "ETH-PERP");
    expect(first.onPrice({ qty: "1", entry: 100 }, 100, 1)).toBeNull();
    expect(first.onPrice({ qty: "1", entry: 100 }, 101, 2)).toBeNull();
    const again = new RunStop(fast, dir, "run:x:ETH-PERP", "ETH-PERP");
    // 101 reached tier 0 (10 % ROE, locks 5 %) before the restart; a fresh guard would hold at 97.9.
    expect(again.onPrice({ qty: "1", entry: 100 }, 97.9, 3)).toBeNull();
    expect(again.onPrice({ qty: "1", entry: 100 }, 97.9, 4)?.reason).toMatch(/^Phase 2 close: tier 0/);
    const saved = loadGuard(dir, "run:x:ETH-PERP");
    expect(saved.kind === "ok" && saved.guard.state.high_water).toBe(101);
  });

  it("on a breach: cancels resting orders, closes reduce-only IOC, journals the DSL and stops", async () => {
    const dir = tmp();
    // 2500 while the strategy buys, then down 4 % (past the 3 % phase 1 retrace).
    const market = new FakeMarket({ script: (step) => (step < 6 ? 2500 : 2400) });
    const paper = new PaperGateway();
    const placed: { reduceOnly: boolean; tif: string; side: string }[] = [];
    const place = paper.place.bind(paper);
    paper.place = async (orders) => {
      placed.push(...orders.map((o) => ({ reduceOnly: o.reduceOnly, tif: o.tif, side: o.side })));
      return place(orders);
    };
    const lines: string[] = [];
    const engine = dslDryRunEngine(
      { strategy: buyer(), paper, market, dir, maxTicks: 30, dsl: fast },
      {
        log: (l) => lines.push(l),
        records: new StrategyRecords({
          dataDir: dir,
          strategy: "buyer",
          instrument: "ETH-PERP",
          log: () => {},
        }),
      },
    );
    const r = await engine.run();
    expect(r.stopReason).toBe("dsl_stop");
    expect(r.dslReason).toMatch(/^Phase 1 close: 2\/2 breaches/);
    expect(r.ticks).toBeLessThan(30);
    expect(r.position.net_qty).toBe("0");
    expect(await paper.openOrders("ETH-PERP")).toEqual([]);
    expect(placed.at(-1)).toEqual({ reduceOnly: true, tif: "Ioc", side: "sell" });
    expect(placed.filter((p) => p.reduceOnly)).toHaveLength(1);
    const trades = readFileSync(join(dir, "cli", "trades.jsonl"), "utf8")
      .trim()
      .split("\n");
    expect(JSON.parse(trades.at(-1)!)).toMatchObject({ side: "sell", quantity: "1" });
    const [entry] = readAllJournalEntries(dir);
    expect(entry?.close_reason).toMatch(/^dsl_stop: Phase 1 close/);
    const saved = loadGuard(join(dir, "cli", "dsl-stop"), "run:buyer:ETH-PERP");
    expect(saved.kind === "ok" && saved.guard.state.closed).toBe(true);
    expect(lines.some((l) => l.includes("DSL stop"))).toBe(true);
  });

  it("a close refused because the exchange halted the market is tried once a minute, not every tick", async () => {
    const dir = tmp();
    let clock = 0;
    // Twenty seconds a tick; the price falls past the stop once the position is on.
    const market = new FakeMarket({
      script: (step) => {
        clock = step * 20_000;
        return step < 6 ? 2500 : 2400;
      },
    });
    const paper = new PaperGateway();
    let closes = 0;
    const place = paper.place.bind(paper);
    paper.place = async (orders) => {
      if (!orders.some((o) => o.reduceOnly)) return place(orders);
      closes += 1;
      return orders.map(() => ({ status: "rejected" as const, message: "Trading is halted." }));
    };
    const lines: string[] = [];
    const engine = dslDryRunEngine(
      { strategy: buyer(), paper, market, dir, maxTicks: 20, dsl: fast },
      { now: () => clock, log: (l) => lines.push(l) },
    );
    const r = await engine.run();
    expect(r.position.net_qty).toBe("1"); // still open: nothing could close it
    // About 13 ticks (four minutes) past the stop: a close a minute, not one a tick.
    expect(closes).toBeGreaterThanOrEqual(3);
    expect(closes).toBeLessThanOrEqual(5);
    expect(lines.filter((l) => /has halted trading/.test(l))).toHaveLength(1);
  });

  it("refuses an unknown preset up front", () => {
    expect(() => runStopConfig("loose")).toThrow(/Unknown DSL preset 'loose'/);
  });
});
