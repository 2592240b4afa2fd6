import type { Candle } from "./candle-intervals.ts";

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
 * A market's past minutes, a day at a time: day k holds minutes [k·1440, (k+1)·1440) counted from
 * `startMs` (the last day may be shorter). The model's backfill makes a day when it is asked for, so
 * a month of minutes for every market never has to be held at once.
 */
export interface PastMinutes {
  startMs: number;
  /** How many minutes the past has. */
  minutes: number;
  day(k: number): MinuteCandles;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY_MINUTES = 1440;

/** Minutes already in memory (a recording) as a past. */
export function minutesInMemory(m: MinuteCandles): PastMinutes {
  return {
    startMs: m.startMs,
    minutes: m.c.length,
    day(k) {
      const from = k * DAY_MINUTES;
      const to = Math.min(m.c.length, from + DAY_MINUTES);
      return {
        startMs: m.startMs + from * MINUTE,
        o: m.o.subarray(from, to),
        h: m.h.subarray(from, to),
        l: m.l.subarray(from, to),
        c: m.c.subarray(from, to),
        v: m.v.subarray(from, to),
        n: m.n.subarray(from, to),
      };
    },
  };
}

/** Whole hours of the past, aggregated once (about 20 kB a month): long candles never need the minutes. */
interface HourCandles {
  startMs: number;
  o: Int32Array;
  h: Int32Array;
  l: Int32Array;
  c: Int32Array;
  v: Float64Array;
  n: Float64Array;
}

/**
 * A market's candles before the live series began, aggregated on request from the minutes (short
 * spans) and from hourly aggregates made on first use (whole hours). Nothing per candle is kept.
 */
export class CandleHistory {
  readonly startMs: number;
  readonly endMs: number;
  private hourly: HourCandles | undefined;
  private close: number | undefined;

  constructor(private readonly source: PastMinutes) {
    this.startMs = source.startMs;
    this.endMs = source.startMs + source.minutes * MINUTE;
  }

  get lastClose(): number {
    if (this.close === undefined) {
      const last = this.source.day(Math.floor((this.source.minutes - 1) / DAY_MINUTES));
      this.close = last.c[last.c.length - 1]!;
    }
    return this.close;
  }

  /** Visit each minute in [from, to) in time order: `d` holds it at index `i`. */
  eachMinute(from: number, to: number, visit: (d: MinuteCandles, i: number) => void): void {
    const i0 = Math.max(0, Math.ceil((from - this.startMs) / MINUTE));
    const i1 = Math.min(this.source.minutes, Math.ceil((to - this.startMs) / MINUTE));
    for (let i = i0; i < i1; ) {
      const k = Math.floor(i / DAY_MINUTES);
      const d = this.source.day(k);
      const end = Math.min(i1, k * DAY_MINUTES + d.c.length);
      for (let j = i - k * DAY_MINUTES; i < end; i++, j++) visit(d, j);
    }
  }

  /** One candle aggregating the past in [from, to), or undefined when none of it falls there. */
  span(from: number, to: number): Candle | undefined {
    const lo = Math.max(from, this.startMs);
    const hi = Math.min(to, this.endMs);
    if (hi <= lo) return undefined;
    let k: Candle | undefined;
    const add = (t: number, o: number, h: number, l: number, c: number, v: number, n: number) => {
      if (!k) k = { t, o, h, l, c, v, n };
      else {
        if (h > k.h) k.h = h;
        if (l < k.l) k.l = l;
        k.c = c;
        k.v += v;
        k.n += n;
      }
    };
    const minutes = (a: number, b: number) =>
      this.eachMinute(a, b, (d, i) => add(from, d.o[i]!, d.h[i]!, d.l[i]!, d.c[i]!, d.v[i]!, d.n[i]!));
    // Whole hours from the hourly aggregates, the ragged ends from the minutes.
    const h0 = Math.ceil(lo / HOUR) * HOUR;
    const h1 = Math.floor(hi / HOUR) * HOUR;
    if (h1 - h0 >= HOUR) {
      const hs = this.hours();
      minutes(lo, h0);
      for (let i = (h0 - hs.startMs) / HOUR; i < (h1 - hs.startMs) / HOUR; i++)
        add(from, hs.o[i]!, hs.h[i]!, hs.l[i]!, hs.c[i]!, hs.v[i]!, hs.n[i]!);
      minutes(h1, hi);
    } else minutes(lo, hi);
    if (k) k.t = from;
    return k;
  }

  private hours(): HourCandles {
    if (this.hourly) return this.hourly;
    const startMs = Math.floor(this.startMs / HOUR) * HOUR;
    const count = Math.ceil((this.endMs - startMs) / HOUR);
    const hs: HourCandles = {
      startMs,
      o: new Int32Array(count),
      h: new Int32Array(count),
      l: new Int32Array(count),
      c: new Int32Array(count),
      v: new Float64Array(count),
      n: new Float64Array(count),
    };
    let prev = -1;
    this.eachMinute(this.startMs, this.endMs, (d, i) => {
      const k = Math.floor((d.startMs + i * MINUTE - startMs) / HOUR);
      if (k !== prev) {
        hs.o[k] = d.o[i]!;
        hs.h[k] = d.h[i]!;
        hs.l[k] = d.l[i]!;
        prev = k;
      } else {
        if (d.h[i]! > hs.h[k]!) hs.h[k] = d.h[i]!;
        if (d.l[i]! < hs.l[k]!) hs.l[k] = d.l[i]!;
      }
      hs.c[k] = d.c[i]!;
      hs.v[k]! += d.v[i]!;
      hs.n[k]! += d.n[i]!;
    });
    this.hourly = hs;
    return hs;
  }
}
