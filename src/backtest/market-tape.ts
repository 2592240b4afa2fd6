import type { BookRow, TradeRow } from "../market/types.ts";
import type { BookLevels } from "./trade-fill-model.ts";

/**
 * Recorded trades and book snapshots of one coin as number arrays, oldest first, for the trade fill
 * model. The recorded window runs from the first to the last event; candles inside it replay from
 * these events, candles outside it from their range.
 */
export class MarketTape {
  readonly tradeCount: number;
  readonly tradeT: Float64Array;
  readonly tradePx: Float64Array;
  readonly tradeSz: Float64Array;
  /** 1 when the taker bought (lifted the ask). */
  readonly tradeTakerBuys: Uint8Array;
  readonly books: (BookLevels & { t: number })[];
  private readonly firstMs: number;
  private readonly lastMs: number;

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
    const firsts = [n > 0 ? this.tradeT[0]! : Infinity, books[0]?.t ?? Infinity];
    const lasts = [n > 0 ? this.tradeT[n - 1]! : -Infinity, books.at(-1)?.t ?? -Infinity];
    this.firstMs = Math.min(...firsts);
    this.lastMs = Math.max(...lasts);
  }

  get empty(): boolean {
    return this.tradeCount === 0 && this.books.length === 0;
  }

  /** True when the candle [openMs, endMs) overlaps the recorded window. */
  covers(openMs: number, endMs: number): boolean {
    return endMs > this.firstMs && openMs <= this.lastMs;
  }
}
