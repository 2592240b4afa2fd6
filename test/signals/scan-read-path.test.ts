import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CandleCache, type CandleReader } from "../../src/signals/candle-cache.ts";
import { type CandleInterval, closedCandles } from "../../src/signals/candles.ts";
import { moversConfig } from "../../src/signals/movers-config.ts";
import { moversOnce, scanOnce } from "../../src/signals/run.ts";
import { type AssetCandles, runScan, type ScanResult, stage1, stage2 } from "../../src/signals/scanner.ts";
import { type ScannerConfig, scannerConfig } from "../../src/signals/scanner-config.ts";
import type { MarketDataSource } from "../../src/signals/source.ts";
import { market } from "./fixtures.ts";
import { MinuteMarket } from "./minute-market.ts";

/** The candles a reader gets (null when the series could not be read). */
const candlesOf = async (cache: CandleCache, ...a: Parameters<CandleCache["window"]>) =>
  (await cache.window(...a))?.candles ?? null;

const HOUR = 3_600_000;
/** Each pass writes its history with an fsync: in memory where the machine has it, so the runs stay quick. */
const scratch = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
const COINS = ["BTC", "ETH", "SOL", "DOGE", "HYPE", "ARB"];

/** A source over a MinuteMarket on a settable clock; markets drift with time so movers can fire. */
function world(exchange: MinuteMarket, startMs: number) {
  const clock = { now: startMs };
  const reads: { coin: string; interval: CandleInterval; items: number }[] = [];
  const source: MarketDataSource = {
    now: () => clock.now,
    markets: async () =>
      COINS.map((c, i) =>
        market(c, {
          volume_24h: 5e6 * (i + 1),
          open_interest: 1e5 * (1 + ((clock.now / 60_000 + i * 7) % 13) / 40),
          funding_rate: ((((clock.now / HOUR) | 0) % 5) - 2) * 0.00002,
          mark_price: exchange.candles(c, "15m", clock.now - 900_000, clock.now, clock.now).at(-1)?.c ?? 100,
        }),
      ),
    async candles(coin, interval, from, to) {
      const out = exchange.candles(coin, interval, from, to, clock.now);
      reads.push({ coin, interval, items: out.length });
      return out;
    },
  };
  /** The read path without any cache: every series read in full at every request. */
  const fullReads: CandleReader = {
    failures: 0,
    async window(coin, interval, lookbackMs) {
      const from = clock.now - lookbackMs;
      return { candles: await source.candles(coin, interval, from, clock.now), from };
    },
  };
  return { clock, source, reads, fullReads };
}

/**
 * The scanner as it read before the cache: every series in full at each scan, the 4h bars as the
 * exchange sends them; the pure scan over them, history kept in memory.
 */
async function scanByFullReads(source: MarketDataSource, cfg: ScannerConfig, history: ScanResult[]) {
  const now = source.now();
  const markets = await source.markets();
  const read = async (coin: string, interval: CandleInterval, lookbackMs: number) =>
    closedCandles(await source.candles(coin, interval, now - lookbackMs, now), now);
  const candles = new Map<string, AssetCandles>();
  for (const m of stage2(cfg, stage1(cfg, markets)))
    candles.set(m.name, {
      "4h": await read(m.name, "4h", cfg.lookback_4h_ms),
      "1h": await read(m.name, "1h", cfg.lookback_1h_ms),
      "15m": await read(m.name, "15m", cfg.lookback_15m_ms),
    });
  const result = runScan(cfg, {
    markets,
    btc4h: await read("BTC", "4h", cfg.lookback_4h_ms),
    btc1h: await read("BTC", "1h", cfg.lookback_1h_ms),
    candles,
    history: [...history],
    nowMs: now,
  });
  history.push(result);
  history.splice(0, Math.max(0, history.length - cfg.scan_history_size));
  return result;
}

const strip = <T extends { stats: { scan_duration_ms: number } }>(r: T) => ({
  ...r,
  stats: { ...r.stats, scan_duration_ms: 0 },
});

describe("the scans decide the same through the cache as through full reads", () => {
  it("scanner: the same result at every scan as reading every series in full (4h bars as sent), for random markets and scan times (property)", async () => {
    // Every kept direction is listed (threshold far below any score), so technicals are compared too.
    const cfg = scannerConfig("default", { top_n_deep: 5, score_threshold: -1000, min_volume_24h: 1 });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 0, max: 4 * HOUR }),
        fc.array(fc.integer({ min: 60_000, max: 70 * 60_000 }), { minLength: 3, maxLength: 7 }),
        async (seed, offset, steps) => {
          const start = Date.UTC(2026, 10, 27, 8) + offset;
          const exchange = new MinuteMarket(start - 210 * HOUR, seed);
          const a = world(exchange, start);
          const b = world(exchange, start);
          const cache = new CandleCache(a.source);
          const dir = mkdtempSync(join(scratch, "scan-"));
          const history: ScanResult[] = [];
          try {
            for (const step of [0, ...steps]) {
              a.clock.now += step;
              b.clock.now += step;
              const cached = await scanOnce(a.source, cache, cfg, dir);
              const full = await scanByFullReads(b.source, cfg, history);
              expect(strip(cached.result)).toEqual(strip(full));
            }
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 12 },
    );
  });

  it("movers: the same signals when the cache reads at every pass (property)", async () => {
    // Thresholds so low that every asset signals, with its candle-derived surge ratio in the output.
    const cfg = moversConfig("sensitive", {
      volume_min_24h: 1,
      max_candle_assets: 4,
      volume_surge_ratio: 0.01,
      breakout_exceed_pct: 0.01,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.array(fc.integer({ min: 30_000, max: 5 * 60_000 }), { minLength: 4, maxLength: 9 }),
        async (seed, steps) => {
          const start = Date.UTC(2026, 10, 27, 9, 58);
          const exchange = new MinuteMarket(start - 210 * HOUR, seed);
          const a = world(exchange, start);
          const b = world(exchange, start);
          const cache = new CandleCache(a.source, 0);
          const dirA = mkdtempSync(join(scratch, "mov-a-"));
          const dirB = mkdtempSync(join(scratch, "mov-b-"));
          try {
            // Not vacuous: over the run, the passes with a baseline signal (a single pass 30 s after
            // the last may see no asset move past even these thresholds).
            let baselines = 0;
            let signals = 0;
            for (const step of [0, ...steps]) {
              a.clock.now += step;
              b.clock.now += step;
              const cached = await moversOnce(a.source, cache, cfg, dirA);
              const full = await moversOnce(b.source, b.fullReads, cfg, dirB);
              expect(strip(cached)).toEqual(strip(full));
              if (cached.stats.has_baseline) baselines += 1;
              signals += cached.signals.length;
            }
            if (baselines > 0) expect(signals).toBeGreaterThan(0);
          } finally {
            for (const d of [dirA, dirB]) rmSync(d, { recursive: true, force: true });
          }
        },
      ),
      { numRuns: 10 },
    );
  });
});

describe("the cache answers as a full read would", () => {
  it("closed bars always, the forming bar's place for the breakout, its figures when read at every call (property)", async () => {
    const intervals: CandleInterval[] = ["15m", "1h", "4h"];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.array(
          fc.record({
            step: fc.integer({ min: 0, max: 90 * 60_000 }),
            coin: fc.constantFrom("BTC", "ETH"),
            interval: fc.constantFrom(...intervals),
            bars: fc.integer({ min: 5, max: 60 }),
            need: fc.constantFrom("closed" as const, "forming-present" as const, "forming" as const),
          }),
          { minLength: 5, maxLength: 25 },
        ),
        fc.boolean(),
        async (seed, calls, everyCall) => {
          const start = Date.UTC(2026, 10, 27, 6, 41);
          const exchange = new MinuteMarket(start - 250 * HOUR, seed);
          const a = world(exchange, start);
          const cache = new CandleCache(a.source, everyCall ? 0 : 300_000);
          for (const c of calls) {
            a.clock.now += c.step;
            const lookback = c.bars * { "15m": 900_000, "1h": HOUR, "4h": 4 * HOUR }[c.interval];
            const got = (await candlesOf(cache, c.coin, c.interval, lookback, c.need))!;
            const full = exchange.candles(
              c.coin,
              c.interval,
              a.clock.now - lookback,
              a.clock.now,
              a.clock.now,
            );
            if (c.need === "forming" && everyCall) expect(got).toEqual(full);
            else expect(closedCandles(got, a.clock.now)).toEqual(closedCandles(full, a.clock.now));
            // Movers' breakout range is the bars before the newest: the same bars either way.
            if (c.need === "forming-present") expect(got.slice(0, -1)).toEqual(full.slice(0, -1));
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
