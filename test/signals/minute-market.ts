import { type Candle, type CandleInterval, INTERVAL_MS } from "../../src/signals/candles.ts";

const MINUTE = 60_000;

/** Deterministic pseudo-random numbers (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Candles as an exchange builds them: every coin prints once a minute (a seeded random walk with
 * bursts of volume), and a candle aggregates the prints of its bucket made by `now`. A closed candle
 * never changes; the forming one grows as time passes. Answers like `candleSnapshot`: the buckets
 * starting in [startTime, min(endTime, now)], oldest first.
 */
export class MinuteMarket {
  /** Closed candles never change: each is aggregated once. */
  private readonly closed = new Map<string, Candle | null>();
  private readonly paths = new Map<string, { px: number[]; v: number[]; rand: () => number }>();

  constructor(
    private readonly originMs: number,
    private readonly seed = 1,
    private readonly startPrice: (coin: string) => number = () => 100,
  ) {}

  /** The coin's print of minute `m` (minutes since the origin). */
  private print(coin: string, m: number): { px: number; v: number } {
    let p = this.paths.get(coin);
    if (!p) {
      let h = this.seed;
      for (const ch of coin) h = (Math.imul(h, 31) + ch.charCodeAt(0)) | 0;
      p = { px: [this.startPrice(coin)], v: [1], rand: rng(h) };
      this.paths.set(coin, p);
    }
    const rand = p.rand;
    while (p.px.length <= m) {
      const last = p.px[p.px.length - 1]!;
      // Regimes of drift so some coins trend (and qualify), with occasional volume bursts.
      const drift = Math.sin(p.px.length / 700) * 0.0004;
      p.px.push(Math.round(last * (1 + drift + (rand() - 0.5) * 0.004) * 1e4) / 1e4);
      p.v.push(Math.round((rand() < 0.02 ? 20 : 1) * (50 + rand() * 100) * 100) / 100);
    }
    return { px: p.px[m]!, v: p.v[m]! };
  }

  candles(coin: string, interval: CandleInterval, startTime: number, endTime: number, now: number): Candle[] {
    const step = INTERVAL_MS[interval];
    const out: Candle[] = [];
    const last = Math.min(endTime, now);
    for (let t = Math.ceil(startTime / step) * step; t <= last; t += step) {
      const key = `${coin}|${interval}|${t}`;
      const done = this.closed.get(key);
      if (done !== undefined) {
        if (done) out.push(done);
        continue;
      }
      const first = Math.max(0, Math.ceil((t - this.originMs) / MINUTE));
      let o = 0;
      let h = -Infinity;
      let l = Infinity;
      let c = 0;
      let v = 0;
      let n = 0;
      for (let m = first; this.originMs + m * MINUTE < t + step && this.originMs + m * MINUTE <= now; m++) {
        const { px, v: pv } = this.print(coin, m);
        if (n === 0) o = px;
        if (px > h) h = px;
        if (px < l) l = px;
        c = px;
        v += pv;
        n++;
      }
      const candle = n === 0 ? null : { t, T: t + step - 1, o, h, l, c, v: Math.round(v * 100) / 100 };
      if (t + step - 1 < now) this.closed.set(key, candle);
      if (candle) out.push(candle);
    }
    return out;
  }
}
