import type { Candle } from "../../signals/candles.ts";
import { Ledger } from "../ledger.ts";
import { CandleSeries } from "../market-history.ts";
import type { CoinHistory } from "./universe.ts";

const DAY_MS = 86_400_000;

/** Candles of one coarser interval built from the recorded ones (oldest first), with where each starts. */
interface Buckets {
  t: number[];
  o: number[];
  h: number[];
  l: number[];
  c: number[];
  v: number[];
  /** Index of the bucket's first recorded candle. */
  first: number[];
}

/**
 * One coin of a WOLF backtest at market (virtual) time: what has been replayed of its candles,
 * funding and asset contexts, what the exchange would say about it now (mid, 24 h volume, funding
 * rate, open interest, candles of any coarser interval — never a candle that has not closed yet
 * beyond the forming one), and its account (a Ledger per coin, funding charged as it settles).
 */
export class CoinReplay {
  readonly series: CandleSeries;
  readonly ledger = new Ledger();
  /** Candles closed so far. */
  private next = 0;
  private fundingNext = 0;
  private ctxNext = 0;
  private readonly dayCandles: number;
  private readonly buckets = new Map<number, Buckets>();
  fundingRate = 0;
  openInterest = 0;
  volumeNtl24h = 0;

  constructor(
    readonly history: CoinHistory,
    readonly intervalMs: number,
    readonly szDecimals: number,
    readonly maxLeverage: number,
  ) {
    this.series = new CandleSeries(history.candles, intervalMs);
    this.dayCandles = Math.max(1, Math.round(DAY_MS / intervalMs));
  }

  get coin(): string {
    return this.history.coin;
  }

  /** True once a candle has closed (the coin is listed and priced). */
  get priced(): boolean {
    return this.next > 0;
  }

  /** True once every recorded candle has closed: the recording ends here (a coin no longer listed). */
  get ended(): boolean {
    return this.next === this.series.length;
  }

  /** The last closed candle's close (the mid the replay quotes), NaN before the first. */
  mid(): number {
    return this.next > 0 ? this.series.c[this.next - 1]! : Number.NaN;
  }

  /** The last closed candle's open, high and low (zeros before the first). */
  lastBar(): { o: number; h: number; l: number } {
    const i = this.next - 1;
    const s = this.series;
    return i >= 0 ? { o: s.o[i]!, h: s.h[i]!, l: s.l[i]! } : { o: 0, h: 0, l: 0 };
  }

  /** The same close as the exchange wrote it ("0" before the first). */
  lastCloseRaw(): string {
    return this.next > 0 ? this.history.candles[this.next - 1]!.c : "0";
  }

  /** Index of the first candle opening at or after `ms` (the series' length when none). */
  firstAtOrAfter(ms: number): number {
    return this.series.firstAtOrAfter(ms);
  }

  /** Replays every candle closed by `now`: funding settled inside it (at its open), contexts, 24 h volume. */
  advanceTo(now: number): void {
    const s = this.series;
    while (this.next < s.length && s.t[this.next]! + this.intervalMs <= now) {
      const i = this.next;
      const open = s.t[i]!;
      const end = open + this.intervalMs;
      const f = this.history.funding;
      while (this.fundingNext < f.length && f[this.fundingNext]!.t < end) {
        const row = f[this.fundingNext]!;
        // An hour inside a hole in the candles is charged at the first price after it (this open).
        if (i > 0 || row.t >= open) this.ledger.applyFunding(this.history.candles[i]!.o, row.rate);
        this.fundingRate = Number(row.rate);
        this.fundingNext += 1;
      }
      const ctx = this.history.assetCtxs;
      while (this.ctxNext < ctx.length && ctx[this.ctxNext]!.t < end) {
        this.openInterest = Number(ctx[this.ctxNext]!.openInterest);
        this.ctxNext += 1;
      }
      this.volumeNtl24h += s.v[i]! * s.c[i]!;
      const out = i - this.dayCandles;
      if (out >= 0) this.volumeNtl24h -= s.v[out]! * s.c[out]!;
      this.next += 1;
    }
  }

  /**
   * Candles of `intervalMs` opening in [startTime, endTime] as the exchange would answer now: the
   * closed ones, then the forming one built from the recorded candles closed so far. An interval
   * finer than the recorded one has no candles.
   */
  candles(intervalMs: number, startTime: number, endTime: number, now: number): Candle[] {
    if (intervalMs < this.intervalMs || intervalMs % this.intervalMs !== 0 || this.next === 0) return [];
    const b = this.bucketsOf(intervalMs);
    const out: Candle[] = [];
    let k = lowerBound(b.t, startTime);
    for (; k < b.t.length && b.t[k]! <= endTime && b.t[k]! + intervalMs <= now; k++) {
      out.push({
        t: b.t[k]!,
        T: b.t[k]! + intervalMs - 1,
        o: b.o[k]!,
        h: b.h[k]!,
        l: b.l[k]!,
        c: b.c[k]!,
        v: b.v[k]!,
      });
    }
    // The forming bucket: only its candles that have closed by now.
    if (k < b.t.length && b.t[k]! <= endTime && b.first[k]! < this.next) {
      const s = this.series;
      const from = b.first[k]!;
      let h = -Infinity;
      let l = Infinity;
      let v = 0;
      for (let i = from; i < this.next; i++) {
        h = Math.max(h, s.h[i]!);
        l = Math.min(l, s.l[i]!);
        v += s.v[i]!;
      }
      out.push({ t: b.t[k]!, T: b.t[k]! + intervalMs - 1, o: s.o[from]!, h, l, c: s.c[this.next - 1]!, v });
    }
    return out;
  }

  private bucketsOf(intervalMs: number): Buckets {
    const hit = this.buckets.get(intervalMs);
    if (hit) return hit;
    const s = this.series;
    const b: Buckets = { t: [], o: [], h: [], l: [], c: [], v: [], first: [] };
    for (let i = 0; i < s.length; i++) {
      const start = Math.floor(s.t[i]! / intervalMs) * intervalMs;
      const last = b.t.length - 1;
      if (last >= 0 && b.t[last] === start) {
        b.h[last] = Math.max(b.h[last]!, s.h[i]!);
        b.l[last] = Math.min(b.l[last]!, s.l[i]!);
        b.c[last] = s.c[i]!;
        b.v[last]! += s.v[i]!;
        continue;
      }
      b.t.push(start);
      b.o.push(s.o[i]!);
      b.h.push(s.h[i]!);
      b.l.push(s.l[i]!);
      b.c.push(s.c[i]!);
      b.v.push(s.v[i]!);
      b.first.push(i);
    }
    this.buckets.set(intervalMs, b);
    return b;
  }
}

function lowerBound(xs: readonly number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
