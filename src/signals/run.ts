import type { CandleReader, SeriesNeed } from "./candle-cache.ts";
import { type CandleInterval, closedCandles, rollUp } from "./candles.ts";
import { appendHistory, moversHistoryPath, readHistory, scannerHistoryPath } from "./history.ts";
import { candleTargets, hasBaseline, type MoverCandles, type MoversScan, runMovers } from "./movers.ts";
import type { MoversConfig } from "./movers-config.ts";
import { type AssetCandles, runScan, type ScanResult, stage1, stage2 } from "./scanner.ts";
import type { ScannerConfig } from "./scanner-config.ts";
import { type MarketDataSource, mapLimit } from "./source.ts";

/** I/O around the pure scanner and movers: fetch markets and candles, run, persist history. */

const CONCURRENCY = 8;

/** Told how many candle series a pass has read of how many it will read (after each one). */
type ScanProgressListener = (read: number, total: number) => void;

/** Movers' lookbacks: 4h bars over a day (volume surge), 1h bars over two (breakout range). */
const MOVERS_LOOKBACK_MS = { "4h": 86_400_000, "1h": 2 * 86_400_000 } as const;

/** The longest lookback each interval is read for by either pass: a series' first read covers both. */
export function planScanReads(
  cache: { plan(interval: CandleInterval, lookbackMs: number): void },
  cfg: ScannerConfig,
): void {
  cache.plan("4h", MOVERS_LOOKBACK_MS["4h"]);
  cache.plan("1h", Math.max(scannerHourlyLookback(cfg), MOVERS_LOOKBACK_MS["1h"]));
  cache.plan("15m", cfg.lookback_15m_ms);
}

/**
 * The scanner reads a coin's 1h bars over its 4h lookback too and rolls its 4h bars up from them:
 * it uses only their closes, which are the exchange's own (a 4h bar closes at its last hour's
 * close), and one read of 200 candles (weight 23) costs less than two of 50 (40).
 */
function scannerHourlyLookback(cfg: ScannerConfig): number {
  return Math.max(cfg.lookback_4h_ms, cfg.lookback_1h_ms);
}

/** `cache.get` that reports each series answered (a failed read counts too: the pass is past it). */
function counting(cache: CandleReader, total: number, onProgress: ScanProgressListener | undefined) {
  let read = 0;
  onProgress?.(0, total);
  return (coin: string, interval: CandleInterval, lookbackMs: number, need: SeriesNeed) =>
    cache.window(coin, interval, lookbackMs, need).finally(() => onProgress?.(++read, total));
}

interface ScanRunResult {
  result: ScanResult;
  candle_failures: number;
}

/**
 * One scanner pass: per-asset 4h/1h/15m candles for the top-N (the predecessor's WOLF fed none), the
 * 4h bars rolled up from the 1h series. It uses closed bars only, so a series is read again only
 * once a bar has closed.
 */
export async function scanOnce(
  source: MarketDataSource,
  cache: CandleReader,
  cfg: ScannerConfig,
  dataDir: string,
  onProgress?: ScanProgressListener,
): Promise<ScanRunResult> {
  const started = source.now();
  const markets = await source.markets();
  const top = stage2(cfg, stage1(cfg, markets));
  const failuresBefore = cache.failures;
  const count = counting(cache, 1 + 2 * top.length, onProgress);
  const span = scannerHourlyLookback(cfg);
  /** A coin's 1h bars over the 1h lookback and its 4h bars over the 4h one, from one 1h series. */
  const hourly = async (coin: string) => {
    const w = await count(coin, "1h", span, "closed");
    if (!w) return { h4: null, h1: null };
    const at = w.from + span;
    return {
      h4: rollUp(w.candles, "4h", at - cfg.lookback_4h_ms),
      h1: w.candles.filter((c) => c.t >= at - cfg.lookback_1h_ms),
    };
  };
  const btc = await hourly("BTC");
  const now = source.now();
  const fetched = await mapLimit(top, CONCURRENCY, async (m) => {
    const [{ h4, h1 }, m15] = await Promise.all([
      hourly(m.name),
      count(m.name, "15m", cfg.lookback_15m_ms, "closed"),
    ]);
    const c: AssetCandles = {
      "4h": closedCandles(h4 ?? [], now),
      "1h": closedCandles(h1 ?? [], now),
      "15m": closedCandles(m15?.candles ?? [], now),
    };
    return [m.name, c] as const;
  });
  const path = scannerHistoryPath(dataDir);
  const history = readHistory<ScanResult>(path).entries;
  const result = runScan(cfg, {
    markets,
    btc4h: closedCandles(btc.h4 ?? [], now),
    btc1h: closedCandles(btc.h1 ?? [], now),
    candles: new Map(fetched),
    history,
    nowMs: started,
    durationMs: source.now() - started,
  });
  appendHistory(path, history, result, cfg.scan_history_size);
  return { result, candle_failures: cache.failures - failuresBefore };
}

/**
 * One movers pass: candles for the largest qualifying assets (capped), history windowed by time.
 * Until the history holds a baseline no detector runs, so such a pass reads no candles.
 */
export async function moversOnce(
  source: MarketDataSource,
  cache: CandleReader,
  cfg: MoversConfig,
  dataDir: string,
  onProgress?: ScanProgressListener,
): Promise<MoversScan> {
  const started = source.now();
  const markets = await source.markets();
  const path = moversHistoryPath(dataDir);
  const history = readHistory<MoversScan>(path).entries;
  const targets = hasBaseline(cfg, history, started) ? candleTargets(cfg, markets) : [];
  const get = counting(cache, 2 * targets.length, onProgress);
  const fetched = await mapLimit(targets, CONCURRENCY, async (coin) => {
    // The surge reads the forming 4h bar's volume; the breakout range only closed 1h bars.
    const [h4, h1] = await Promise.all([
      get(coin, "4h", MOVERS_LOOKBACK_MS["4h"], "forming"),
      get(coin, "1h", MOVERS_LOOKBACK_MS["1h"], "forming-present"),
    ]);
    const c: MoverCandles = {};
    if (h4) c["4h"] = h4.candles;
    if (h1) c["1h"] = h1.candles;
    return [coin, c] as const;
  });
  const scan = runMovers(cfg, {
    markets,
    candles: new Map(fetched),
    history,
    nowMs: started,
    durationMs: source.now() - started,
  });
  appendHistory(path, history, scan, cfg.scan_history_size);
  return scan;
}
