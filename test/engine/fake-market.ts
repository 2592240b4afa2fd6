import type { InstrumentSpec, MarketDataPort, TradePrint } from "../../src/engine/ports.ts";
import type { MarketSnapshot } from "../../src/strategies/sdk.ts";

/** Deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * An in-memory market for engine tests: a seeded random walk with a 5-level book 1 bp either side
 * of mid, advancing one step per snapshot. `script` pins mids for chosen steps. Each move of the mid
 * prints a trade at the new mid (a taker sell when it fell, a buy when it rose) on the tape.
 */
export class FakeMarket implements MarketDataPort {
  step = 0;
  mid: number;
  private readonly rand: () => number;
  private readonly tape: TradePrint[] = [];
  private lastMid: number | undefined;

  constructor(
    private readonly opts: {
      seed?: number;
      start?: number;
      volBps?: number;
      szDecimals?: number;
      t0?: number;
      script?: (step: number) => number | undefined;
    } = {},
  ) {
    this.mid = opts.start ?? 2500;
    this.rand = prng(opts.seed ?? 1);
  }

  async spec(instrument: string): Promise<InstrumentSpec> {
    return { instrument, szDecimals: this.opts.szDecimals ?? 4 };
  }

  async snapshot(instrument: string): Promise<MarketSnapshot> {
    this.step += 1;
    const pinned = this.opts.script?.(this.step);
    if (pinned !== undefined) this.mid = pinned;
    else this.mid *= 1 + ((this.rand() - 0.5) * 2 * (this.opts.volBps ?? 10)) / 10_000;
    const mid = Math.round(this.mid * 100) / 100;
    const levels = (sign: number) =>
      Array.from({ length: 5 }, (_, i) => ({
        px: Math.round(mid * (1 + (sign * (i + 1)) / 10_000) * 100) / 100,
        sz: 5,
      }));
    const bids = mid > 0 ? levels(-1) : [];
    const asks = mid > 0 ? levels(1) : [];
    const timestampMs = (this.opts.t0 ?? 1_800_000_000_000) + this.step * 1000;
    if (mid > 0 && this.lastMid !== undefined && mid !== this.lastMid) {
      const side = mid < this.lastMid ? "sell" : "buy";
      this.tape.push({ id: `t${this.step}`, side, px: mid, sz: 50, timeMs: timestampMs });
      if (this.tape.length > 50) this.tape.shift();
    }
    if (mid > 0) this.lastMid = mid;
    return {
      instrument,
      timestampMs,
      mid: Math.max(mid, 0),
      bid: bids[0]?.px ?? 0,
      ask: asks[0]?.px ?? 0,
      book: { bids, asks },
      fundingRate: 0.0000125,
      openInterest: 100_000,
      volume24h: 1_000_000,
      candles: [],
      referenceFunding: {},
    };
  }

  async trades(): Promise<TradePrint[]> {
    return [...this.tape];
  }
}
