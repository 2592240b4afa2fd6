import { bucketStart, type Candle, type Interval, nextBucket } from "./candles.ts";

/** Minute candles of a market's past, in typed arrays (prices at the price scale, volume in lots). */
export interface MinuteCandles {
  /** Start of the first minute; minute i covers [startMs + i·60 s, +60 s). */
  startMs: number;
  o: Int32Array;
  h: Int32Array;
  l: Int32Array;
  c: Int32Array;
  v: Float64Array;
  n: Uint16Array;
}

/**
 * A past whose minutes are made on demand: the recent ones at once (the latest volume, trades and the
 * buckets in progress), all of them the first time an older candle is asked for.
 */
export interface LazyMinutes {
  recent: MinuteCandles;
  full(): MinuteCandles;
}

const MINUTE = 60_000;

/**
 * A market's candles before the live series began. Each interval is built from the minutes once,
 * the first time it is asked for, and holds only the buckets that closed before `liveFrom` of that
 * interval (the bucket in progress at the switch belongs to the live series).
 */
export class CandleHistory {
  private readonly built = new Map<Interval, Candle[]>();
  private readonly source: LazyMinutes;

  constructor(minutes: MinuteCandles | LazyMinutes) {
    this.source = "recent" in minutes ? minutes : { recent: minutes, full: () => minutes };
  }

  /** The recent minutes, always at hand. */
  get recent(): MinuteCandles {
    return this.source.recent;
  }

  /** Every minute of the past (made on use; the source decides how long it keeps them). */
  get minutes(): MinuteCandles {
    return this.source.full();
  }

  /** Where the recent minutes begin: spans from there on never need the whole past. */
  get recentFromMs(): number {
    return this.source.recent.startMs;
  }

  get endMs(): number {
    const r = this.source.recent;
    return r.startMs + r.c.length * MINUTE;
  }

  get lastClose(): number {
    const r = this.source.recent;
    return r.c[r.c.length - 1]!;
  }

  /** Closed buckets of `interval` that start before `before`, oldest first. */
  buckets(interval: Interval, before: number): Candle[] {
    let out = this.built.get(interval);
    if (!out) {
      out = this.aggregate(interval, this.minutes.startMs, before);
      this.built.set(interval, out);
    }
    return out;
  }

  /** One candle aggregating the minutes in [from, to), or undefined when none fall there. */
  span(from: number, to: number): Candle | undefined {
    const m = from >= this.recentFromMs ? this.source.recent : this.minutes;
    const i0 = Math.max(0, Math.ceil((from - m.startMs) / MINUTE));
    const i1 = Math.min(m.c.length, Math.ceil((to - m.startMs) / MINUTE));
    if (i1 <= i0) return undefined;
    const k: Candle = { t: from, o: m.o[i0]!, h: m.h[i0]!, l: m.l[i0]!, c: m.c[i1 - 1]!, v: 0, n: 0 };
    for (let i = i0; i < i1; i++) {
      if (m.h[i]! > k.h) k.h = m.h[i]!;
      if (m.l[i]! < k.l) k.l = m.l[i]!;
      k.v += m.v[i]!;
      k.n += m.n[i]!;
    }
    return k;
  }

  private aggregate(interval: Interval, from: number, before: number): Candle[] {
    const out: Candle[] = [];
    let b = bucketStart(interval, from);
    while (b < before) {
      const next = nextBucket(interval, b);
      const k = this.span(Math.max(b, from), Math.min(next, this.endMs));
      if (k) out.push({ ...k, t: b });
      b = next;
    }
    return out;
  }
}
