import type { Dec } from "../../core/decimal.ts";

export const OHLC_INTERVALS = ["1H", "4H", "1D", "1W"] as const;
type OhlcInterval = (typeof OHLC_INTERVALS)[number];

const HOUR_MS = 3_600_000;
const INTERVAL_MS: Record<OhlcInterval, number> = {
  "1H": HOUR_MS,
  "4H": 4 * HOUR_MS,
  "1D": 24 * HOUR_MS,
  "1W": 7 * 24 * HOUR_MS,
};
/** Weekly candles open on Monday 00:00 UTC; the epoch fell on a Thursday, the first Monday 4 days later. */
const WEEK_ORIGIN_MS = 4 * 24 * HOUR_MS;

export function isOhlcInterval(s: string): s is OhlcInterval {
  return (OHLC_INTERVALS as readonly string[]).includes(s);
}

/** Start (UTC ms) of the candle that contains `tMs`. */
export function bucketStart(tMs: number, interval: OhlcInterval): number {
  const size = INTERVAL_MS[interval];
  const origin = interval === "1W" ? WEEK_ORIGIN_MS : 0;
  return Math.floor((tMs - origin) / size) * size + origin;
}

interface Point {
  tMs: number;
  value: Dec;
}

export interface Candle {
  startMs: number;
  open: Dec;
  high: Dec;
  low: Dec;
  close: Dec;
  count: number;
}

/** Candles from a series of snapshots: open = first, close = last (by time), high/low over the bucket. */
export function toCandles(points: readonly Point[], interval: OhlcInterval): Candle[] {
  const sorted = [...points].sort((a, b) => a.tMs - b.tMs);
  const candles: Candle[] = [];
  for (const p of sorted) {
    const start = bucketStart(p.tMs, interval);
    const last = candles[candles.length - 1];
    if (last && last.startMs === start) {
      if (p.value.gt(last.high)) last.high = p.value;
      if (p.value.lt(last.low)) last.low = p.value;
      last.close = p.value;
      last.count += 1;
    } else {
      candles.push({ startMs: start, open: p.value, high: p.value, low: p.value, close: p.value, count: 1 });
    }
  }
  return candles;
}
