/** Row shapes of the market-data store. Prices, sizes and rates are the exchange's decimal strings. */

export type CandleInterval = "1m" | "5m" | "1h";
export const CANDLE_INTERVALS: readonly CandleInterval[] = ["1m", "5m", "1h"];

export interface CandleRow {
  /** Open time, ms. */
  t: number;
  /** Close time, ms (the exchange's: last millisecond of the bucket). */
  T: number;
  o: string;
  h: string;
  l: string;
  c: string;
  v: string;
  /** Number of trades. */
  n: number;
}

/**
 * Candles as number columns, oldest first (index i of each array is one candle): the store's doubles
 * as they are, for readers that compute with numbers. Each double's shortest decimal is the exact
 * decimal the store holds (decimal-double.ts).
 */
export interface CandleColumns {
  /** Open times, ms. */
  t: Float64Array;
  o: Float64Array;
  h: Float64Array;
  l: Float64Array;
  c: Float64Array;
  v: Float64Array;
}

export interface FundingRow {
  t: number;
  rate: string;
  premium: string;
}

export interface TradeRow {
  t: number;
  px: string;
  sz: string;
  /** "B": the buyer took (bid side aggressor), "A": the seller took. */
  side: "B" | "A";
  tid: string;
}

export interface BookRow {
  t: number;
  /** [px, sz] levels, best first. */
  bids: [string, string][];
  asks: [string, string][];
}

/** One `activeAssetCtx` snapshot of a perp; fields the exchange may omit are null. */
export interface AssetCtxRow {
  t: number;
  funding: string;
  openInterest: string;
  oraclePx: string;
  markPx: string;
  midPx: string | null;
  premium: string | null;
  dayNtlVlm: string;
  prevDayPx: string;
}

/** Where and what to read: a coin's rows with `fromMs <= t < toMs`. */
export interface MarketQuery {
  /** The data directory (DATA_DIR); the store lives under `<root>/market/`. */
  root: string;
  network: string;
  /** Main-dex name ("ETH") or HIP-3 "dex:NAME" ("yex:VXX"). */
  coin: string;
  fromMs: number;
  toMs: number;
}

/** Where to write: the same as a query without the time range. */
export interface MarketTarget {
  root: string;
  network: string;
  coin: string;
}

const DATASETS = [
  "candles_1m",
  "candles_5m",
  "candles_1h",
  "funding",
  "trades",
  "l2book",
  "asset_ctx",
] as const;
export type Dataset = (typeof DATASETS)[number];

export function candleDataset(interval: CandleInterval): Dataset {
  return `candles_${interval}`;
}
