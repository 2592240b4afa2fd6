import type { Candle, CandleInterval } from "./candles.ts";
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
 * Candle cache: a series is refetched after `maxAgeMs` (default 5 min). Candle reads are the
 * heaviest requests (weight ≥ 20 each); refreshing 60 movers series every minute alone would spend
 * Hyperliquid's whole 1200/min budget. Failures are counted, not hidden; a failed refresh keeps the
 * last good series.
 */
export class CandleCache {
  private entries = new Map<string, { at: number; candles: Candle[] }>();
  failures = 0;

  constructor(
    private readonly source: MarketDataSource,
    private readonly maxAgeMs = 300_000,
  ) {}

  async get(coin: string, interval: CandleInterval, lookbackMs: number): Promise<Candle[] | null> {
    const now = this.source.now();
    const key = `${coin}|${interval}|${lookbackMs}`;
    const hit = this.entries.get(key);
    if (hit && now - hit.at < this.maxAgeMs) return hit.candles;
    try {
      const candles = await this.source.candles(coin, interval, now - lookbackMs, now);
      this.entries.set(key, { at: now, candles });
      return candles;
    } catch {
      this.failures++;
      return hit?.candles ?? null;
    }
  }
}
