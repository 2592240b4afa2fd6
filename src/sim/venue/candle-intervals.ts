/**
 * Hyperliquid's candle intervals and their buckets, aligned to UTC: minutes and hours on epoch
 * multiples, days at midnight, 3d on epoch multiples, weeks on Monday 00:00, months on the 1st.
 * Shared by the live candle series (candles.ts) and a market's past (candle-history.ts).
 */

export const INTERVALS = [
  "1m",
  "3m",
  "5m",
  "15m",
  "30m",
  "1h",
  "2h",
  "4h",
  "8h",
  "12h",
  "1d",
  "3d",
  "1w",
  "1M",
] as const;
export type Interval = (typeof INTERVALS)[number];

export interface Candle {
  t: number;
  o: number;
  h: number;
  l: number;
  c: number;
  /** Base volume in lots. */
  v: number;
  n: number;
}

const MINUTE = 60_000;
const DAY = 86_400_000;
const FIXED_MS: Record<Exclude<Interval, "1M">, number> = {
  "1m": MINUTE,
  "3m": 3 * MINUTE,
  "5m": 5 * MINUTE,
  "15m": 15 * MINUTE,
  "30m": 30 * MINUTE,
  "1h": 60 * MINUTE,
  "2h": 120 * MINUTE,
  "4h": 240 * MINUTE,
  "8h": 480 * MINUTE,
  "12h": 720 * MINUTE,
  "1d": DAY,
  "3d": 3 * DAY,
  "1w": 7 * DAY,
};
/** 1970-01-05 was the first Monday after the epoch. */
const FIRST_MONDAY = 4 * DAY;

export function isInterval(s: unknown): s is Interval {
  return typeof s === "string" && (INTERVALS as readonly string[]).includes(s);
}

export function bucketStart(interval: Interval, t: number): number {
  if (interval === "1M") {
    const d = new Date(t);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  }
  const ms = FIXED_MS[interval];
  if (interval === "1w") return t - mod(t - FIRST_MONDAY, ms);
  return t - mod(t, ms);
}

export function nextBucket(interval: Interval, start: number): number {
  if (interval === "1M") {
    const d = new Date(start);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  }
  return start + FIXED_MS[interval];
}

export function prevBucket(interval: Interval, start: number): number {
  if (interval === "1M") {
    const d = new Date(start);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1);
  }
  return start - FIXED_MS[interval];
}

function mod(a: number, m: number): number {
  return ((a % m) + m) % m;
}
