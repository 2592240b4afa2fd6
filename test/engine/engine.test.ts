import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Engine, type EngineOptions } from "../../src/engine/engine.ts";
import { PaperGateway } from "../../src/engine/paper-gateway.ts";
import { DEFAULT_RISK_LIMITS } from "../../src/engine/risk.ts";
import { readKvFile } from "../../src/engine/state-store.ts";
import { statusFromKv } from "../../src/engine/status.ts";
import { defaultParams, findStrategy } from "../../src/strategies/catalog.ts";
import { FakeMarket } from "./fake-market.ts";

function tmp(): string {
  return mkdtempSync(join(tmpdir(), "hl-engine-"));
}

function setup(
  strategyId: string,
  dataDir: string,
  over: Partial<EngineOptions> = {},
  market = new FakeMarket({ seed: 7 }),
) {
  const strategy = findStrategy(strategyId)!;
  const paper = new PaperGateway();
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
