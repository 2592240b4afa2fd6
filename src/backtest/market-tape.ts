import type { BookRow, TradeRow } from "../market/types.ts";
import type { BookLevels } from "./trade-fill-model.ts";

/** Events further apart than this are a hole in the recording (the recorder was down). */
const RECORDING_GAP_MS = 60_000;

/**
 * Recorded trades and book snapshots of one coin as number arrays, oldest first, for the trade fill
 * model. The recording covers the stretches where its events (trades and books together) follow one
 * another less than RECORDING_GAP_MS apart; candles overlapping a stretch replay from its events,
 * other candles (before, after, or in a hole) from their range.
 */
export class MarketTape {
  readonly tradeCount: number;
  readonly tradeT: Float64Array;
  readonly tradePx: Float64Array;
  readonly tradeSz: Float64Array;
  /** 1 when the taker bought (lifted the ask). */
  readonly tradeTakerBuys: Uint8Array;
  readonly books: (BookLevels & { t: number })[];
  /** Covered stretches [from, to] of event times, oldest first, flattened. */
  private readonly stretches: number[] = [];
  private stretchAt = 0;

  constructor(trades: readonly TradeRow[], books: readonly BookRow[]) {
    const n = trades.length;
    this.tradeCount = n;
    this.tradeT = new Float64Array(n);
    this.tradePx = new Float64Array(n);
    this.tradeSz = new Float64Array(n);
    this.tradeTakerBuys = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const r = trades[i]!;
      this.tradeT[i] = r.t;
      this.tradePx[i] = Number(r.px);
      this.tradeSz[i] = Number(r.sz);
      this.tradeTakerBuys[i] = r.side === "B" ? 1 : 0;
    }
    const level = ([px, sz]: [string, string]) => [Number(px), Number(sz)] as const;
    this.books = books.map((b) => ({ t: b.t, bids: b.bids.map(level), asks: b.asks.map(level) }));
    // Merge the two time lines into stretches.
    let i = 0;
    let j = 0;
    let from = Number.NaN;
    let last = Number.NaN;
    while (i < n || j < this.books.length) {
      const t =
        j >= this.books.length || (i < n && this.tradeT[i]! <= this.books[j]!.t)
          ? this.tradeT[i++]!
          : this.books[j++]!.t;
      if (Number.isNaN(from)) from = t;
      else if (t - last > RECORDING_GAP_MS) {
        this.stretches.push(from, last);
        from = t;
      }
      last = t;
    }
    if (!Number.isNaN(from)) this.stretches.push(from, last);
  }

  get empty(): boolean {
    return this.tradeCount === 0 && this.books.length === 0;
  }

  /**
   * True when the candle [openMs, endMs) overlaps a covered stretch. Asked for candles in time order
   * (a cursor moves forward; an earlier candle after a later one is answered from the start again).
   */
  covers(openMs: number, endMs: number): boolean {
    const s = this.stretches;
    if (this.stretchAt > 0 && s[this.stretchAt - 1]! >= openMs) this.stretchAt = 0;
    while (this.stretchAt < s.length && s[this.stretchAt + 1]! < openMs) this.stretchAt += 2;
    return this.stretchAt < s.length && s[this.stretchAt]! < endMs;
  }

  /** The covered stretches as [from, to] pairs (ms). */
  coverage(): [number, number][] {
    const out: [number, number][] = [];
    for (let k = 0; k < this.stretches.length; k += 2) out.push([this.stretches[k]!, this.stretches[k + 1]!]);
    return out;
  }
}
