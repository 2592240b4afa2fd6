import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HlMarketData } from "../../src/engine/hl-adapter.ts";
import { runStrategy } from "../../src/engine/runner.ts";
import { readKvFile } from "../../src/engine/state-store.ts";
import { statusFromKv } from "../../src/engine/status.ts";
import { RateBudget } from "../../src/exchange/budget.ts";
import { HlClient } from "../../src/exchange/client.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { STRATEGY_IDS } from "../../src/strategies/catalog.ts";

/** Paper runs of the real engine, in-process, against the sim world over HTTP (fast tick, own accounts). */
describe("paper runs on the sim world", () => {
  let world: SimWorld;
  beforeAll(async () => {
    world = await startSimWorld({ port: 0, seed: 11, speed: 30 });
  });
  afterAll(async () => {
    await world.close();
  });

  /** A client with its own paper wallet (its own sim account) and no request-weight throttling. */
  async function client(dir: string): Promise<HlClient> {
    return HlClient.create({
      network: "paper",
      apiUrl: world.url,
      env: { DATA_DIR: dir },
      budget: new RateBudget({ weightPerMinute: 1e9 }),
    });
  }

  it("simple_mm: 200 ticks place, rest and fill orders without a failed tick", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hl-sim-run-"));
    const lines: string[] = [];
    const r = await runStrategy({
      strategy: "simple_mm",
      instrument: "eth-perp",
      tickSeconds: 0,
      maxTicks: 200,
      mock: true,
      dryRun: false,
      resume: false,
      dataDir: join(dir, "cli"),
      params: { spread_bps: 4 },
      client: await client(dir),
      log: (l) => lines.push(l),
    });
    expect(lines.filter((l) => l.includes("failed"))).toEqual([]);
    expect(r.ticks).toBe(200);
    expect(r.stats.total_placed).toBeGreaterThan(2);
    expect(r.stats.total_filled).toBeGreaterThan(0);
    const status = statusFromKv(readKvFile(join(dir, "cli", "state.db")));
    expect(status).toMatchObject({
      status: "running",
      engine: "simple_mm",
      instrument: "ETH-PERP",
      tick_count: 200,
    });
    const trades = readFileSync(join(dir, "cli", "trades.jsonl"), "utf8")
      .trim()
      .split("\n");
    expect(trades).toHaveLength(r.stats.total_filled);
  }, 120_000);

  it("every other strategy runs 200 ticks on the sim without a failed tick; makers and takers fill", async () => {
    const { findStrategy } = await import("../../src/strategies/catalog.ts");
    const ids = STRATEGY_IDS.filter((s) => s !== "simple_mm" && s !== "llm_agent");
    const results = await Promise.all(
      ids.map(async (id) => {
        const dir = mkdtempSync(join(tmpdir(), `hl-sim-${id}-`));
        const lines: string[] = [];
        const r = await runStrategy({
          strategy: id,
          instrument: "ETH-PERP",
          tickSeconds: 0,
          maxTicks: 200,
          mock: true,
          dryRun: false,
          resume: false,
          dataDir: join(dir, "cli"),
          client: await client(dir),
          log: (l) => lines.push(l),
        });
        return { id, type: findStrategy(id)!.type, r, failed: lines.filter((l) => /failed|error/.test(l)) };
      }),
    );
    for (const { id, type, r, failed } of results) {
      expect({ id, failed }).toEqual({ id, failed: [] });
      expect(r.ticks).toBe(200);
      // Quoting and taking strategies trade in any market; signal, arb, risk and rfq strategies act
      // only when their condition appears, which a 200-tick paper run does not force.
      if (type === "mm" || type === "taker") {
        expect({ id, placed: r.stats.total_placed > 0 }).toEqual({ id, placed: true });
        expect({ id, filled: r.stats.total_filled > 0 }).toEqual({ id, filled: true });
      }
    }
  }, 240_000);

  it("market data carries funding, open interest and a multi-level book (predecessor's were 0)", async () => {
    const m = new HlMarketData(await client(mkdtempSync(join(tmpdir(), "hl-sim-md-"))), {
      assetContext: true,
      candles: true,
    });
    const s = await m.snapshot("ETH-PERP");
    expect(s.mid).toBeGreaterThan(0);
    expect(s.bid).toBeLessThan(s.ask);
    expect(s.book.bids.length).toBeGreaterThan(1);
    expect(s.openInterest).toBeGreaterThan(0);
    expect(Number.isFinite(s.fundingRate)).toBe(true);
    expect(s.timestampMs).toBeGreaterThan(0);
    expect((await m.spec("vxx-usdyp")).instrument).toBe("VXX-USDYP");
  });

  it("--dry-run: real book, local fills, nothing sent to the exchange", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hl-sim-dry-"));
    const c = await client(dir);
    const r = await runStrategy({
      strategy: "aggressive_taker",
      instrument: "ETH-PERP",
      tickSeconds: 0,
      maxTicks: 3,
      mock: false,
      dryRun: true,
      network: "paper",
      resume: false,
      dataDir: join(dir, "cli"),
      client: c,
      log: () => undefined,
    });
    expect(r.stats.total_filled).toBeGreaterThan(0);
    expect(await c.userFills()).toEqual([]);
    const account = await c.clearinghouseState();
    expect(account.assetPositions).toEqual([]);
  });
});
