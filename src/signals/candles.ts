/** A candle as the exchange sends it (`candleSnapshot`), with the decimal strings parsed. */
export interface Candle {
  /** open time, ms */
  t: number;
  /** close time, ms (the candle is still forming while now < T) */
  T: number;
  o: number;
  h: number;
  l: number;
  c: number;
  /** volume in base units (coins) */
  v: number;
}

export interface RawCandle {
  t: number;
  T: number;
  o: string;
  h: string;
  l: string;
  c: string;
  v: string;
}

export function parseCandles(raw: readonly RawCandle[]): Candle[] {
  return raw.map((k) => ({
    t: k.t,
    T: k.T,
    o: Number(k.o),
    h: Number(k.h),
    l: Number(k.l),
    c: Number(k.c),
    v: Number(k.v),
  }));
}

/**
 * The candles that have finished by `nowMs`. The exchange always returns the in-progress candle
 * last; counting it as a full bar biases volume ratios towards "dying" and patterns towards noise.
 */
export function closedCandles(candles: readonly Candle[], nowMs: number): Candle[] {
  let n = candles.length;
  while (n > 0 && candles[n - 1]!.T >= nowMs) n--;
  return n === candles.length ? (candles as Candle[]) : candles.slice(0, n);
}

export const INTERVAL_MS = { "15m": 900_000, "1h": 3_600_000, "4h": 14_400_000 } as const;
export type CandleInterval = keyof typeof INTERVAL_MS;
