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
