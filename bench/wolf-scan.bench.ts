import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RateBudget, requestWeight, responseWeight } from "../src/exchange/budget.ts";
import { CandleCache } from "../src/signals/candle-cache.ts";
import type { CandleInterval } from "../src/signals/candles.ts";
import { type MarketCtx, parseMarkets } from "../src/signals/market.ts";
import { moversConfig } from "../src/signals/movers-config.ts";
import { moversOnce, planScanReads, scanOnce } from "../src/signals/run.ts";
import { scannerConfig } from "../src/signals/scanner-config.ts";
import type { MarketDataSource } from "../src/signals/source.ts";
import { buildWolfConfig } from "../src/wolf/config.ts";
import { MinuteMarket } from "../test/signals/minute-market.ts";
import type { BenchReporter } from "./harness.ts";

/**
 * WOLF's scans (scanner + movers, the runner's schedule: movers every tick, the scanner at the first
 * tick and every `scanner_interval_ticks`) against the recorded mainnet universe, paced by one
 * process budget of WOLF_SCAN_BENCH_WEIGHT weight a minute (default 350, WOLF's share under `hl up`)
 * with the client's 20 % reserve, on a virtual clock: every request waits for its weight (Hyperliquid's
 * table, src/exchange/budget.ts) and 40 ms of latency. Besides the scans, each tick reads the mids
 * of the three dexes and every fifth tick the account and open orders, as the runner does.
 * Figures: time and weight to the first scanner result (when WOLF may first open a slot), and the
 * scans' weight per later scanner cycle and per minute over the next three hours.
 */

const LATENCY_MS = 40;
const DEXES = 3;
const HOURS_AFTER = 3;

/** Timers on a virtual clock, fired in time order by `runUntil`. */
class VirtualClock {
  now: number;
  private timers: { at: number; seq: number; fire: () => void }[] = [];
  private seq = 0;
  constructor(start: number) {
    this.now = start;
  }
  sleep = (ms: number): Promise<void> =>
    new Promise((fire) => {
      this.timers.push({ at: this.now + Math.max(0, ms), seq: this.seq++, fire });
    });
  async runUntil(untilMs: number, done: () => boolean = () => false): Promise<void> {
    for (;;) {
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
      if (done()) return;
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers[0];
      if (!next || next.at > untilMs) return;
      this.timers.shift();
      this.now = next.at;
      next.fire();
    }
  }
}

interface RecordedEntry {
  name: string;
  isDelisted?: boolean;
  dayNtlVlm?: string;
  funding?: string;
  openInterest?: string;
  markPx?: string;
}

function recordedMarkets(): MarketCtx[] {
  const file = new URL("../src/sim/recorded/mainnet-meta-2025-11-11.json", import.meta.url);
  const { universe } = JSON.parse(readFileSync(file, "utf8")) as { universe: RecordedEntry[] };
  return parseMarkets({ universe }, universe);
}

export default async function (r: BenchReporter): Promise<void> {
  const weightPerMinute = Number(process.env.WOLF_SCAN_BENCH_WEIGHT) || 350;
  const start = Date.UTC(2026, 10, 27, 10, 7, 13);
  const clock = new VirtualClock(start);
  const budget = new RateBudget({
    weightPerMinute,
    reserveShare: 0.2,
    now: () => clock.now,
    sleep: clock.sleep,
  });
  const markets = recordedMarkets();
  const marks = new Map(markets.map((m) => [m.name, m.mark_price || 1]));
  const exchange = new MinuteMarket(start - 400 * 3_600_000, 7, (c) => marks.get(c) ?? 1);
  const spent = { weight: 0, reads: 0, candleWeight: 0 };
  const request = async (type: string, answer: () => unknown[]): Promise<unknown[]> => {
    const payload = { type };
    const w = requestWeight("info", payload);
    await budget.take(w);
    await clock.sleep(LATENCY_MS);
    const out = answer();
    const extra = responseWeight("info", payload, out);
    budget.charge(extra);
    spent.weight += w + extra;
    if (type === "candleSnapshot") spent.candleWeight += w + extra;
    return out;
  };
  /** Reads per series, to count those read more than once before the first result. */
  const seen = new Map<string, number>();
  let marketsRead: { at: number; value: Promise<MarketCtx[]> } | undefined;
  const source: MarketDataSource = {
    now: () => clock.now,
    // Shared for 60 s between the passes (HL_ASSET_CTX_MAX_AGE_S), one metaAndAssetCtxs per dex.
    markets() {
      if (marketsRead && clock.now - marketsRead.at < 60_000) return marketsRead.value;
      const value = Promise.all(
        Array.from({ length: DEXES }, () => request("metaAndAssetCtxs", () => [])),
      ).then(() => markets);
      marketsRead = { at: clock.now, value };
      return value;
    },
    async candles(coin: string, interval: CandleInterval, startTime: number, endTime: number) {
      spent.reads++;
      seen.set(`${coin}|${interval}`, (seen.get(`${coin}|${interval}`) ?? 0) + 1);
      return (await request("candleSnapshot", () =>
        exchange.candles(coin, interval, startTime, endTime, clock.now),
      )) as ReturnType<MinuteMarket["candles"]>;
    },
  };
  const other = async (tick: number) => {
    for (let d = 0; d < DEXES; d++) await request("allMids", () => []);
    if (tick % 5 === 0) {
      for (let d = 0; d < DEXES; d++) await request("clearinghouseState", () => []);
      await request("frontendOpenOrders", () => []);
    }
  };

  const wolf = buildWolfConfig("default", {}, {});
  const dataDir = mkdtempSync(join(tmpdir(), "wolf-scan-bench-"));
  const cache = new CandleCache(source, wolf.candle_refresh_s * 1000);
  const scanner = scannerConfig();
  planScanReads(cache, scanner);
  const movers = moversConfig();
  let firstScanAt: number | undefined;
  let weightAtFirstScan = 0;
  let readsAtFirstScan = 0;
  let candleWeightAtFirstScan = 0;
  let distinctAtFirstScan = 0;
  let scannerRun: Promise<void> | undefined;
  let moversRun: Promise<void> | undefined;
  const cycles: { at: number; weight: number; reads: number; candleWeight: number }[] = [];
  let stopped = false;

  const ticker = async () => {
    for (let tick = 1; !stopped; tick++) {
      void other(tick);
      if (!moversRun)
        moversRun = moversOnce(source, cache, movers, dataDir)
          .then(() => undefined)
          .finally(() => {
            moversRun = undefined;
          });
      if (!scannerRun && (tick === 1 || (tick - 1) % wolf.scanner_interval_ticks === 0)) {
        cycles.push({
          at: clock.now,
          weight: spent.weight,
          reads: spent.reads,
          candleWeight: spent.candleWeight,
        });
        scannerRun = scanOnce(source, cache, scanner, dataDir)
          .then(() => {
            if (firstScanAt === undefined) {
              firstScanAt = clock.now;
              weightAtFirstScan = spent.weight;
              readsAtFirstScan = spent.reads;
              candleWeightAtFirstScan = spent.candleWeight;
              distinctAtFirstScan = seen.size;
            }
          })
          .finally(() => {
            scannerRun = undefined;
          });
      }
      await clock.sleep(wolf.tick_interval_s * 1000);
    }
  };
  try {
    void ticker();
    await clock.runUntil(start + 3_600_000, () => firstScanAt !== undefined);
    const end = start + (HOURS_AFTER + 1) * 3_600_000;
    await clock.runUntil(end);
    stopped = true;
    const first = firstScanAt ?? Number.NaN;
    r.figure({
      name: `WOLF first scan at ${weightPerMinute}/min: time to first scanner result`,
      value: (first - start) / 1000,
      unit: "s",
    });
    r.figure({
      name: `WOLF first scan at ${weightPerMinute}/min: weight spent by then`,
      value: weightAtFirstScan,
      unit: "weight",
    });
    r.figure({
      name: `WOLF first scan at ${weightPerMinute}/min: of which candle reads`,
      value: candleWeightAtFirstScan,
      unit: "weight",
    });
    r.figure({
      name: `WOLF first scan at ${weightPerMinute}/min: candle series read by then`,
      value: readsAtFirstScan,
      unit: "reads",
    });
    r.figure({
      name: `WOLF first scan at ${weightPerMinute}/min: distinct series among them`,
      value: distinctAtFirstScan,
      unit: "series",
    });
    // Later scans: the cycles after the first hour (caches warm), scans' reads plus the tick's others.
    const later = cycles.filter((c) => c.at >= start + 3_600_000);
    const a = later[0]!;
    const b = later[later.length - 1]!;
    const n = later.length - 1;
    r.figure({
      name: "WOLF later scan cycle (15 ticks): weight per cycle",
      value: (b.weight - a.weight) / n,
      unit: "weight",
    });
    r.figure({
      name: "WOLF later scan cycle (15 ticks): of which candle reads",
      value: (b.candleWeight - a.candleWeight) / n,
      unit: "weight",
    });
    r.figure({
      name: "WOLF later scan cycle (15 ticks): candle series read per cycle",
      value: (b.reads - a.reads) / n,
      unit: "reads",
    });
    r.figure({
      name: "WOLF steady state: weight per minute (scans + mids + reconcile)",
      value: (b.weight - a.weight) / ((b.at - a.at) / 60_000),
      unit: "weight/min",
      target: { op: "<=", value: weightPerMinute },
    });
  } finally {
    stopped = true;
    rmSync(dataDir, { recursive: true, force: true });
  }
}
