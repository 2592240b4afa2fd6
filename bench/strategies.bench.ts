import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Engine } from "../src/engine/engine.ts";
import { PaperGateway } from "../src/engine/paper-gateway.ts";
import { DEFAULT_RISK_LIMITS } from "../src/engine/risk.ts";
import { defaultParams, findStrategy, STRATEGY_IDS } from "../src/strategies/catalog.ts";
import type { DecisionContext } from "../src/strategies/sdk.ts";
import { FakeMarket } from "../test/engine/fake-market.ts";
import { type BenchReporter, percentile } from "./harness.ts";

const WARMUP = 200;
const SAMPLES = 3000;

/** One decision per strategy (warm state, moving market), µs p99; then the engine's own tick overhead. */
export default async function (r: BenchReporter): Promise<void> {
  const market = new FakeMarket({ seed: 5, volBps: 5 });
  const snaps = await Promise.all(
    Array.from({ length: WARMUP + SAMPLES }, () => market.snapshot("ETH-PERP")),
  );
  for (const id of STRATEGY_IDS) {
    const s = findStrategy(id)!;
    const p = defaultParams(s);
    let st = s.init(p);
    const times: number[] = [];
    snaps.forEach((snapshot, i) => {
      const ctx: DecisionContext = {
        snapshot,
        positionQty: (i % 7) - 3,
        avgEntryPrice: 2500,
        unrealizedPnl: 0,
        realizedPnl: 0,
        openOrders: [],
        recentFills: [],
        risk: { reduceOnly: false, drawdownPct: 0.2 },
        tick: i,
        tickSeconds: 10,
        nowMs: snapshot.timestampMs,
        advice: { kind: "place_order", side: "buy", size: 0.1, price: snapshot.mid, reasoning: "bench" },
      };
      const t0 = performance.now();
      const d = s.decide(ctx, p, st);
      const dt = performance.now() - t0;
      st = d.state;
      if (i >= WARMUP) times.push(dt * 1000);
    });
    r.figure({
      name: `${id} decision p99`,
      value: percentile(times, 99),
      unit: "µs",
      target: { op: "<", value: 1000 },
    });
  }

  const dir = mkdtempSync(join(tmpdir(), "hl-bench-engine-"));
  try {
    const strategy = findStrategy("engine_mm")!;
    const paper = new PaperGateway();
    const stamps: number[] = [];
    const engine = new Engine({
      strategy,
      params: defaultParams(strategy),
      instrument: "ETH-PERP",
      market: paper.watch(new FakeMarket({ seed: 9, volBps: 5 })),
      gateway: paper,
      dataDir: dir,
      tickMs: 0,
      maxTicks: 1000,
      resume: false,
      limits: DEFAULT_RISK_LIMITS,
      requoteBps: 2,
      mode: "dry-run",
      network: "bench",
      log: (l) => {
        if (l.startsWith("[")) stamps.push(performance.now());
      },
    });
    await engine.run();
    const ticks = stamps.slice(1).map((t, i) => (t - stamps[i]!) * 1000);
    r.figure({
      name: "engine tick overhead p50 (engine_mm, in-memory market, state.db write)",
      value: percentile(ticks, 50),
      unit: "µs",
    });
    r.figure({
      name: "engine tick overhead p99 (SQLite WAL checkpoints fsync)",
      value: percentile(ticks, 99),
      unit: "µs",
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
