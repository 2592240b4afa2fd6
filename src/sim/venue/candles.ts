import type { CandleHistory } from "./candle-history.ts";

/**
 * Candles built from trades for every Hyperliquid interval. Buckets are aligned to UTC: minutes and
 * hours on epoch multiples, days at midnight, 3d on epoch multiples, weeks on Monday 00:00, months
 * on the 1st. A bucket without trades carries the previous close (o = h = l = c, v = 0, n = 0).
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
/** Most candles kept (and returned) per coin and interval, as on Hyperliquid. */
export const MAX_CANDLES = 5000;

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

function prevBucket(interval: Interval, start: number): number {
  if (interval === "1M") {
    const d = new Date(start);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1);
  }
  return start - FIXED_MS[interval];
}

function mod(a: number, m: number): number {
  return ((a % m) + m) % m;
}

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

const NONE_OPENED: readonly { interval: Interval; candle: Candle }[] = [];

/** All intervals of one coin: live buckets, after the market's history when it has one. */
export class CandleSeries {
  private readonly series: Candle[][] = INTERVALS.map(() => []);
  private history: CandleHistory | undefined;

  /** End (exclusive) of each interval's newest bucket: trades before it need no bucket arithmetic. */
  private readonly ends: number[] = INTERVALS.map(() => Number.NEGATIVE_INFINITY);
  /** The candles are a recording played back (replayMinute): the venue's own trades no longer print. */
  private replayed = false;

  /**
   * Start the live series where `history` ends: each interval's bucket in progress is opened with the
   * history's part of it, and older buckets are answered from the history. A bucket in progress that
   * reaches back before the history's recent minutes (a week, a month) takes its past part when first
   * read, so a fresh world never makes every minute of every market at start.
   */
  seed(history: CandleHistory): void {
    this.history = history;
    const end = history.endMs;
    for (let k = 0; k < INTERVALS.length; k++) {
      const interval = INTERVALS[k]!;
      const bs = bucketStart(interval, end);
      this.ends[k] = nextBucket(interval, bs);
      if (bs < history.recentFromMs) {
        this.pending[k] = bs;
        const close = history.lastClose;
        this.series[k] = [{ t: bs, o: close, h: close, l: close, c: close, v: 0, n: 0 }];
        continue;
      }
      const part = history.span(bs, end);
      const close = history.lastClose;
      this.series[k] = [part ?? { t: bs, o: close, h: close, l: close, c: close, v: 0, n: 0 }];
    }
  }

  /** Bucket start of each interval whose past part is still to be folded in (see seed). */
  private readonly pending: (number | undefined)[] = INTERVALS.map(() => undefined);

  /** Fold the history's part into interval k's first live bucket, once. */
  private settle(k: number): void {
    const bs = this.pending[k];
    if (bs === undefined || !this.history) return;
    this.pending[k] = undefined;
    const part = this.history.span(bs, this.history.endMs);
    const live = this.series[k]!.find((c) => c.t === bs);
    if (!part || !live) return;
    // The live part started at the history's last close: the bucket opens where the past opened it.
    live.o = part.o;
    if (part.h > live.h) live.h = part.h;
    if (part.l < live.l) live.l = part.l;
    live.v += part.v;
    live.n += part.n;
  }

  /** Record a trade in every interval's current bucket. */
  trade(t: number, px: number, sz: number): void {
    if (this.replayed) return;
    for (let k = 0; k < INTERVALS.length; k++) {
      const arr = this.series[k]!;
      const last = arr[arr.length - 1];
      if (last && t < this.ends[k]! && t >= last.t) {
        if (px > last.h) last.h = px;
        if (px < last.l) last.l = px;
        last.c = px;
        last.v += sz;
        last.n++;
        continue;
      }
      const interval = INTERVALS[k]!;
      const bs = bucketStart(interval, t);
      if (last && last.t >= bs) {
        // A trade stamped earlier than the newest bucket (clock went back): fold it into that bucket.
        if (px > last.h) last.h = px;
        if (px < last.l) last.l = px;
        last.c = px;
        last.v += sz;
        last.n++;
        continue;
      }
      arr.push({ t: bs, o: px, h: px, l: px, c: px, v: sz, n: 1 });
      this.ends[k] = nextBucket(interval, bs);
      trim(arr);
    }
  }

  /**
   * Fold one recorded, closed minute into every interval: a bucket that only carries the previous
   * close (no trades yet) takes the minute's figures, a bucket with minutes in it is extended.
   */
  replayMinute(k: Candle): void {
    this.replayed = true;
    for (let i = 0; i < INTERVALS.length; i++) {
      const interval = INTERVALS[i]!;
      const arr = this.series[i]!;
      const last = arr[arr.length - 1];
      const bs = bucketStart(interval, k.t);
      if (last && last.t === bs) {
        if (last.n === 0 && last.v === 0)
          Object.assign(last, { o: k.o, h: k.h, l: k.l, c: k.c, v: k.v, n: k.n });
        else {
          if (k.h > last.h) last.h = k.h;
          if (k.l < last.l) last.l = k.l;
          last.c = k.c;
          last.v += k.v;
          last.n += k.n;
        }
        continue;
      }
      if (last && last.t > bs) continue;
      arr.push({ ...k, t: bs });
      this.ends[i] = nextBucket(interval, bs);
      trim(arr);
    }
  }

  /** Open the bucket containing `now` for every interval that has history; returns the new candles. */
  roll(now: number): readonly { interval: Interval; candle: Candle }[] {
    let opened: { interval: Interval; candle: Candle }[] | undefined;
    for (let k = 0; k < INTERVALS.length; k++) {
      // The venue rolls every market several times a second: within the newest bucket there is nothing to do.
      if (now < this.ends[k]!) continue;
      const arr = this.series[k]!;
      const last = arr[arr.length - 1];
      if (!last) continue;
      const bs = bucketStart(INTERVALS[k]!, now);
      if (last.t < bs) {
        const candle = { t: bs, o: last.c, h: last.c, l: last.c, c: last.c, v: 0, n: 0 };
        arr.push(candle);
        this.ends[k] = nextBucket(INTERVALS[k]!, bs);
        trim(arr);
        opened ??= [];
        opened.push({ interval: INTERVALS[k]!, candle });
      }
    }
    return opened ?? NONE_OPENED;
  }

  current(interval: Interval): Candle | undefined {
    const k = INTERVALS.indexOf(interval);
    this.settle(k);
    const arr = this.series[k]!;
    return arr[arr.length - 1];
  }

  /** Candles with t in [startTime, endTime] (gaps filled with the previous close), the most recent MAX_CANDLES. */
  snapshot(interval: Interval, startTime: number, endTime: number, now: number): Candle[] {
    const k = INTERVALS.indexOf(interval);
    this.settle(k);
    const live = this.series[k]!;
    const past = this.history && live.length > 0 ? this.history.buckets(interval, live[0]!.t) : [];
    const total = past.length + live.length;
    if (total === 0) return [];
    const at = (i: number): Candle => (i < past.length ? past[i]! : live[i - past.length]!);
    const first = at(0).t;
    let b = bucketStart(interval, Math.min(endTime, now));
    const from = Math.max(first, startTime);
    const out: Candle[] = [];
    let i = total - 1;
    while (b >= from && out.length < MAX_CANDLES) {
      while (i > 0 && at(i).t > b) i--;
      const c = at(i);
      if (c.t === b) out.push(c);
      else if (c.t < b) out.push({ t: b, o: c.c, h: c.c, l: c.c, c: c.c, v: 0, n: 0 });
      else break;
      b = prevBucket(interval, b);
    }
    return out.reverse();
  }
}

function trim(arr: Candle[]): void {
  if (arr.length > MAX_CANDLES + 1000) arr.splice(0, arr.length - MAX_CANDLES);
}
