import type { CandleHistory } from "./candle-history.ts";
import {
  bucketStart,
  type Candle,
  INTERVALS,
  type Interval,
  nextBucket,
  prevBucket,
} from "./candle-intervals.ts";

/**
 * Candles built from trades for every Hyperliquid interval (buckets in candle-intervals.ts). A bucket
 * without trades carries the previous close (o = h = l = c, v = 0, n = 0).
 */

/** Most candles kept (and returned) per coin and interval, as on Hyperliquid. */
const MAX_CANDLES = 5000;

const NONE_OPENED: readonly { interval: Interval; candle: Candle }[] = [];

/** All intervals of one coin: live buckets, after the market's history when it has one. */
export class CandleSeries {
  private readonly series: Candle[][] = INTERVALS.map(() => []);
  private history: CandleHistory | undefined;

  /** End (exclusive) of each interval's newest bucket: trades before it need no bucket arithmetic. */
  private readonly ends: number[] = INTERVALS.map(() => Number.NEGATIVE_INFINITY);
  /**
   * The earliest end among the intervals that have a candle (roll opens buckets only after one): before
   * it roll has nothing to do, and the venue rolls every market several times a second.
   */
  private firstEnd = Number.POSITIVE_INFINITY;

  /** Set interval k's end once its series holds the bucket that ends there. */
  private setEnd(k: number, end: number): void {
    this.ends[k] = end;
    let first = Number.POSITIVE_INFINITY;
    for (let i = 0; i < INTERVALS.length; i++)
      if (this.series[i]!.length > 0 && this.ends[i]! < first) first = this.ends[i]!;
    this.firstEnd = first;
  }
  /** The candles are a recording played back (replayMinute): the venue's own trades no longer print. */
  private replayed = false;

  /**
   * Start the live series where `history` ends: each interval's bucket in progress opens at the
   * history's last close and takes the history's part of it when first read (settle), and older
   * buckets are answered from the history. Seeding reads no minutes: a fresh world makes a market's
   * past only when someone looks at it.
   */
  seed(history: CandleHistory): void {
    this.history = history;
    const end = history.endMs;
    const close = history.lastClose;
    for (let k = 0; k < INTERVALS.length; k++) {
      const interval = INTERVALS[k]!;
      const bs = bucketStart(interval, end);
      this.pending[k] = bs;
      this.series[k] = [{ t: bs, o: close, h: close, l: close, c: close, v: 0, n: 0 }];
      this.setEnd(k, nextBucket(interval, bs));
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
      this.setEnd(k, nextBucket(interval, bs));
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
      this.setEnd(i, nextBucket(interval, bs));
      trim(arr);
    }
  }

  /** Open the bucket containing `now` for every interval that has history; returns the new candles. */
  roll(now: number): readonly { interval: Interval; candle: Candle }[] {
    if (now < this.firstEnd) return NONE_OPENED;
    let opened: { interval: Interval; candle: Candle }[] | undefined;
    for (let k = 0; k < INTERVALS.length; k++) {
      if (now < this.ends[k]!) continue;
      const arr = this.series[k]!;
      const last = arr[arr.length - 1];
      if (!last) continue;
      const bs = bucketStart(INTERVALS[k]!, now);
      if (last.t < bs) {
        const candle = { t: bs, o: last.c, h: last.c, l: last.c, c: last.c, v: 0, n: 0 };
        arr.push(candle);
        this.setEnd(k, nextBucket(INTERVALS[k]!, bs));
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
    if (live.length === 0) return [];
    const history = this.history;
    const first = history ? bucketStart(interval, history.startMs) : live[0]!.t;
    const from = Math.max(first, startTime);
    const out: Candle[] = [];
    let b = bucketStart(interval, Math.min(endTime, now));
    let i = live.length - 1;
    while (b >= from && out.length < MAX_CANDLES && b >= live[0]!.t) {
      while (i > 0 && live[i]!.t > b) i--;
      const c = live[i]!;
      if (c.t === b) out.push(c);
      else if (c.t < b) out.push({ t: b, o: c.c, h: c.c, l: c.c, c: c.c, v: 0, n: 0 });
      else break;
      b = prevBucket(interval, b);
    }
    // Older buckets come from the past, made for this answer only.
    while (history && b >= from && out.length < MAX_CANDLES) {
      const c = history.span(b, nextBucket(interval, b));
      if (!c) break;
      out.push(c);
      b = prevBucket(interval, b);
    }
    return out.reverse();
  }
}

function trim(arr: Candle[]): void {
  if (arr.length > MAX_CANDLES + 1000) arr.splice(0, arr.length - MAX_CANDLES);
}
