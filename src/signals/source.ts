import { type Candle, type CandleInterval, INTERVAL_MS } from "./candles.ts";
import type { MarketCtx } from "./market.ts";

/** What the scanner and movers read from the exchange (implemented over HlClient in src/wolf/hl-port.ts). */
export interface MarketDataSource {
  now(): number;
  /** Every perp market of every dex. */
  markets(): Promise<MarketCtx[]>;
  /** Candles oldest first, the forming one last (as the exchange returns them). */
  candles(coin: string, interval: CandleInterval, startTime: number, endTime: number): Promise<Candle[]>;
}

export { mapLimit } from "../core/concurrency.ts";

/**
 * Candle cache: one series per coin and interval, read for the longest lookback asked of it and
 * answered to every shorter one (the scanner and movers ask for the same series). A series is read
 * again after `maxAgeMs` (default 5 min) or a quarter of its bar, whichever is longer (a 4h bar
 * changes little in 5 minutes); with `maxAgeMs` 0, at every call. Candle reads are the heaviest requests (weight ≥ 20 each); refreshing
 * 60 movers series every minute alone would spend Hyperliquid's whole 1200/min budget. Failures are
 * counted, not hidden; a failed refresh keeps the last good series.
 */
export class CandleCache {
  private entries = new Map<string, { at: number; lookbackMs: number; candles: Candle[] }>();
  failures = 0;

  constructor(
    private readonly source: MarketDataSource,
    private readonly maxAgeMs = 300_000,
  ) {}

  async get(coin: string, interval: CandleInterval, lookbackMs: number): Promise<Candle[] | null> {
    const now = this.source.now();
    const key = `${coin}|${interval}`;
    const hit = this.entries.get(key);
    // maxAgeMs 0 (tests, replays) reads every time.
    const maxAge = this.maxAgeMs === 0 ? 0 : Math.max(this.maxAgeMs, INTERVAL_MS[interval] / 4);
    const from = now - lookbackMs;
    if (hit && now - hit.at < maxAge && hit.at - hit.lookbackMs <= from) return window(hit.candles, from);
    const fetchLookback = Math.max(lookbackMs, hit?.lookbackMs ?? 0);
    try {
      const candles = await this.source.candles(coin, interval, now - fetchLookback, now);
      this.entries.set(key, { at: now, lookbackMs: fetchLookback, candles });
      return window(candles, from);
    } catch {
      this.failures++;
      return hit ? window(hit.candles, from) : null;
    }
  }
}

/** The candles that open at or after `from` (the whole series when it starts there already). */
function window(candles: Candle[], from: number): Candle[] {
  return candles.length === 0 || candles[0]!.t >= from ? candles : candles.filter((c) => c.t >= from);
}
