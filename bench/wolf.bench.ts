import { performance } from "node:perf_hooks";
import { dslConfigFromPreset } from "../src/guard/config.ts";
import { evaluateDsl, newDslState } from "../src/guard/dsl.ts";
import type { Candle } from "../src/signals/candles.ts";
import type { MarketCtx } from "../src/signals/market.ts";
import { type AssetCandles, runScan } from "../src/signals/scanner.ts";
import { scannerConfig } from "../src/signals/scanner-config.ts";
import { type BenchReporter, percentile } from "./harness.ts";

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function walk(rand: () => number, n: number, start: number, intervalMs: number, endMs: number): Candle[] {
  const out: Candle[] = [];
  let px = start;
  for (let i = 0; i < n; i++) {
    const o = px;
    px *= 1 + (rand() - 0.49) * 0.02;
    const t = endMs - (n - i) * intervalMs;
    out.push({
      t,
      T: t + intervalMs - 1,
      o,
      h: Math.max(o, px) * 1.003,
      l: Math.min(o, px) * 0.997,
      c: px,
      v: 1000 + rand() * 5000,
    });
  }
  return out;
}

export default async function (r: BenchReporter): Promise<void> {
  // DSL: one evaluation per streamed price update (tight preset, long, 10x), a noisy trending path.
  const cfg = dslConfigFromPreset("tight", { direction: "long", leverage: 10 });
  const rand = rng(1);
  const prices = Array.from(
    { length: 200_000 },
    (_, i) => 100 * (1 + 0.00002 * i) * (1 + (rand() - 0.5) * 0.004),
  );
  let st = newDslState({ position_id: "b", instrument: "B", entry_price: 100, position_size: "1", nowMs: 0 });
  for (let i = 0; i < 20_000; i++) st = evaluateDsl(cfg, st, prices[i]!, i * 250).state; // warm-up
  st = newDslState({ position_id: "b", instrument: "B", entry_price: 100, position_size: "1", nowMs: 0 });
  const t0 = performance.now();
  let closes = 0;
  for (let i = 0; i < prices.length; i++) {
    const res = evaluateDsl(cfg, st, prices[i]!, i * 250);
    if (res.action === "close") {
      closes++;
      st = newDslState({
        position_id: "b",
        instrument: "B",
        entry_price: prices[i]!,
        position_size: "1",
        nowMs: i * 250,
      });
    } else st = res.state;
  }
  const perUpdateUs = ((performance.now() - t0) * 1000) / prices.length;
  r.figure({
    name: `DSL evaluation per price update (${closes} closes in the path)`,
    value: perUpdateUs,
    unit: "µs",
    target: { op: "<", value: 20 },
  });

  // Scanner: a full pass over 200 assets from cached market data and candles.
  const now = Date.UTC(2026, 0, 5);
  const markets: MarketCtx[] = [];
  const candles = new Map<string, AssetCandles>();
  for (let i = 0; i < 200; i++) {
    const name = `C${i}`;
    const mark = 1 + rand() * 1000;
    const oi = (1e6 + rand() * 5e7) / mark;
    markets.push({
      name,
      volume_24h: 6e5 + rand() * 1e8,
      funding_rate: (rand() - 0.5) * 0.0001,
      open_interest: oi,
      open_interest_usd: oi * mark,
      mark_price: mark,
      delisted: false,
    });
    candles.set(name, {
      "4h": walk(rand, 50, mark, 14_400_000, now),
      "1h": walk(rand, 48, mark, 3_600_000, now),
      "15m": walk(rand, 48, mark, 900_000, now),
    });
  }
  const scfg = { ...scannerConfig(), top_n_deep: 200 };
  const btc4h = walk(rand, 50, 60000, 14_400_000, now);
  const btc1h = walk(rand, 48, 60000, 3_600_000, now);
  const runs: number[] = [];
  for (let i = 0; i < 30; i++) {
    const a = performance.now();
    runScan(scfg, { markets, btc4h, btc1h, candles, history: [], nowMs: now });
    runs.push(performance.now() - a);
  }
  r.figure({
    name: "scanner full pass, 200 assets (cached data), median",
    value: percentile(runs.slice(5), 50),
    unit: "ms",
    target: { op: "<", value: 50 },
  });
}
