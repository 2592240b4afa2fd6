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

interface RawCandle {
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

/**
 * Bars of a longer interval built from shorter ones (e.g. 4h from 1h), for those opening at or
 * after `from`: open of the first, high, low, close of the last, volume summed. Open, high, low and
 * close are the exchange's own figures (a 4h bar's close is its last hour's close); the summed
 * volume may differ from the exchange's in the last bits.
 */
export function rollUp(candles: readonly Candle[], interval: CandleInterval, from: number): Candle[] {
  const step = INTERVAL_MS[interval];
  const out: Candle[] = [];
  for (const k of candles) {
    const t = Math.floor(k.t / step) * step;
    if (t < from) continue;
    const bar = out.at(-1);
    if (bar && bar.t === t) {
      if (k.h > bar.h) bar.h = k.h;
      if (k.l < bar.l) bar.l = k.l;
      bar.c = k.c;
      bar.v += k.v;
    } else out.push({ t, T: t + step - 1, o: k.o, h: k.h, l: k.l, c: k.c, v: k.v });
  }
  return out;
}
