import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Engine } from "../../src/engine/engine.ts";
import { HlGateway, HlMarketData } from "../../src/engine/hl-adapter.ts";
import { DEFAULT_RISK_LIMITS } from "../../src/engine/risk.ts";
import { RateBudget } from "../../src/exchange/budget.ts";
import { HlClient } from "../../src/exchange/client.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { defineStrategy } from "../../src/strategies/sdk.ts";

/** Swings between +0.05 and −0.05 ETH every 3 ticks with IOCs sized from the position it believes. */
const swing = defineStrategy({
  id: "swing_test",
  description: "alternate a fixed long and short",
  type: "taker",
  params: z.object({}),
  init: () => ({}),
  decide(ctx, _p, state) {
    const target = Math.floor(ctx.tick / 3) % 2 === 0 ? 0.05 : -0.05;
    const want = Number((target - ctx.positionQty).toFixed(4));
    if (Math.abs(want) < 0.001) return { orders: [], state };
    const side = want > 0 ? "buy" : "sell";
    const price = side === "buy" ? ctx.snapshot.ask * 1.01 : ctx.snapshot.bid * 0.99;
    return { orders: [{ side, price, size: Math.abs(want), tif: "Ioc", tag: "swing" }], state };
  },
});

describe("hl run under exchange faults and a restart (sim world)", () => {
  let world: SimWorld;
  beforeAll(async () => {
    // Time is compressed here (a tick every few ms, 429s injected as faults): the sim's own per-IP weight
    // limit would add 429s of its own and make the fault sequence depend on the machine's speed.
    world = await startSimWorld({ port: 0, seed: 21, ipWeightLimit: false });
  });
  afterAll(async () => {
    await world.close();
  });

  it("lost answers, resets, 429s and slow requests: one position as believed, no fill logged twice", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hl-chaos-"));
    const client = await HlClient.create({
      network: "paper",
      apiUrl: world.url,
      env: { DATA_DIR: dir },
      budget: new RateBudget({ weightPerMinute: 1e9 }),
      timeoutMs: 300,
      orderTtlMs: 1_200,
      retry: { baseDelayMs: 20, maxDelayMs: 100 },
    });
    await client.accountSummary();
    for (const kind of ["late", "reset", "rate_limit", "slow"] as const)
      world.faults.add({ kind, type: "order", count: 2, delayMs: kind === "slow" ? 600 : 900 });
    const lines: string[] = [];
    const run = async (resume: boolean) => {
      const market = new HlMarketData(client);
      const engine = new Engine({
        strategy: swing,
        params: {},
        instrument: "ETH-PERP",
        market,
        gateway: new HlGateway(client, market),
        dataDir: join(dir, "cli"),
        tickMs: 50,
        maxTicks: 14,
        resume,
        limits: DEFAULT_RISK_LIMITS,
        requoteBps: 2,
        mode: "mock",
        network: "paper",
        log: (l) => lines.push(l),
      });
      return engine.run();
    };
    await run(false);
    const second = await run(true); // a restart on the same state
    expect(world.faults.pending()).toEqual([]); // every fault was hit
    const { positions } = await client.accountSummary();
    const onExchange = positions.find((p) => p.coin === "ETH")?.szi ?? "0";
    expect(Number(second.position.net_qty)).toBeCloseTo(Number(onExchange), 9);
    expect(Math.abs(Number(onExchange))).toBeLessThanOrEqual(0.05);
    expect(lines.filter((l) => l.includes("position reconciled"))).toEqual([]);
    // Never a doubled position on the way: every tick's position is within the strategy's ±0.05.
    const held = lines.flatMap((l) => {
      const m = / pos=([+-]?[\d.]+) @/.exec(l);
      return m ? [Math.abs(Number(m[1]))] : [];
    });
    expect(held.length).toBeGreaterThan(10);
    expect(Math.max(...held)).toBeLessThanOrEqual(0.05);
    const logged = readFileSync(join(dir, "cli", "trades.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { fill_id: string });
    const ids = logged.map((t) => t.fill_id);
    expect(new Set(ids).size).toBe(ids.length);
    const exchangeFills = (await client.userFills()).filter((f) => f.coin === "ETH");
    expect(ids.length).toBe(exchangeFills.length);
    await client.close();
  }, 40_000);
});
