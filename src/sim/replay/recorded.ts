/**
 * One market's recorded history as the replay needs it: 1-minute candles, L2 book snapshots and
 * funding, each sorted by time. Prices and sizes of books stay decimal strings (they are posted on
 * the venue as they were recorded); candle figures are numbers already on the exchange's grid.
 */
export interface RecordedCandle {
  /** Start of the minute (ms). */
  t: number;
  o: number;
  h: number;
  l: number;
  c: number;
  /** Base volume and trade count. */
  v: number;
  n: number;
}

interface RecordedLevel {
  px: string;
  sz: string;
}

interface RecordedBook {
  time: number;
  bids: RecordedLevel[];
  asks: RecordedLevel[];
}

export interface RecordedFunding {
  time: number;
  fundingRate: number;
  premium: number;
}

export interface RecordedMarket {
  coin: string;
  candles: RecordedCandle[];
  books: RecordedBook[];
  funding: RecordedFunding[];
}

export const MINUTE_MS = 60_000;
