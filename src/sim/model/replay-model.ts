import { MINUTE_MS, type RecordedCandle, type RecordedMarket } from "../replay/recorded.ts";
import type { HouseQuote } from "./house-quotes.ts";
import type { TakerIntent } from "./market-model.ts";
import { type MarketParams, marketParams } from "./market-params.ts";
import { initialPriceState, type PriceState } from "./price-process.ts";
import type { WorldModel } from "./world-model.ts";

/** Far below any tick (a 5-significant-figure tick is ≥ 0.1 bps): the first level lands one tick out. */
const REPLAY_HALF_SPREAD_BPS = 0.01;

interface ReplayState {
  rec: RecordedMarket;
  params: MarketParams;
  price: PriceState;
  /** Next candle to publish (it closes at t + 1 min) and the book in force (−1: none yet). */
  nextCandle: number;
  book: number;
  quotes: readonly HouseQuote[] | undefined;
}

/**
 * Plays recorded markets back on the sim clock instead of inventing them. A minute's candle is
 * published when that minute has closed (never earlier: nothing from the future leaks into the
 * present), and the price is the last closed minute's close, or the mid of the newest recorded book
 * when that is more recent. Recorded books are posted by the house as they were; without them the
 * house quotes its usual ladder depth but one tick each side of the replayed price, so the book's
 * mid is the recorded price. There is no invented taker flow.
 */
export class ReplayModel implements WorldModel {
  private readonly markets = new Map<string, ReplayState>();
  private t: number;

  constructor(
    recorded: readonly RecordedMarket[],
    private readonly opts: {
      seed: number;
      startMs: number;
      /** A minute closed on the sim clock: the venue shows it as the recorded candle. */
      onCandle?: (coin: string, candle: RecordedCandle) => void;
    },
  ) {
    this.t = opts.startMs;
    for (const rec of recorded) {
      // The tightest book around the recorded price: one tick each side, so the mid is the recorded price.
      const params = { ...marketParams(rec.coin, opts.seed), halfSpreadBps: REPLAY_HALF_SPREAD_BPS };
      const closed = firstNotClosed(rec.candles, opts.startMs);
      const book = lastAtOrBefore(rec.books, opts.startMs);
      const last = rec.candles[closed - 1];
      const px = book >= 0 ? bookMid(rec, book) : (last?.c ?? rec.candles[0]?.o);
      if (px === undefined || !(px > 0))
        throw new Error(`no recorded price for ${rec.coin} at the replay start`);
      this.markets.set(rec.coin, {
        rec,
        params,
        price: { ...initialPriceState(px, 0), premium: 0 },
        nextCandle: closed,
        book,
        quotes: book >= 0 ? toQuotes(rec, book) : undefined,
      });
    }
  }

  get time(): number {
    return this.t;
  }

  /** When the recording runs out: the last minute's close or the last book, whichever is later. */
  get endMs(): number {
    let end = this.opts.startMs;
    for (const m of this.markets.values()) {
      const c = m.rec.candles[m.rec.candles.length - 1];
      const b = m.rec.books[m.rec.books.length - 1];
      end = Math.max(end, c ? c.t + MINUTE_MS : end, b ? b.time : end);
    }
    return end;
  }

  coins(): string[] {
    return [...this.markets.keys()];
  }

  advanceTo(nowMs: number): number {
    if (nowMs <= this.t) return 0;
    let changes = 0;
    for (const m of this.markets.values()) {
      const { candles, books } = m.rec;
      let pxAt = -1;
      let px = m.price.px;
      while (m.nextCandle < candles.length && candles[m.nextCandle]!.t + MINUTE_MS <= nowMs) {
        const c = candles[m.nextCandle++]!;
        this.opts.onCandle?.(m.rec.coin, c);
        px = c.c;
        pxAt = c.t + MINUTE_MS;
        changes++;
      }
      let book = m.book;
      while (book + 1 < books.length && books[book + 1]!.time <= nowMs) book++;
      if (book !== m.book) {
        m.book = book;
        m.quotes = toQuotes(m.rec, book);
        changes++;
        if (books[book]!.time >= pxAt) px = bookMid(m.rec, book);
      }
      if (px !== m.price.px) m.price = { ...m.price, px };
    }
    this.t = nowMs;
    return changes;
  }

  price(coin: string): PriceState | undefined {
    return this.markets.get(coin)?.price;
  }

  params(coin: string): MarketParams | undefined {
    return this.markets.get(coin)?.params;
  }

  recordedBook(coin: string): readonly HouseQuote[] | undefined {
    return this.markets.get(coin)?.quotes;
  }

  drainTakers(): TakerIntent[] {
    return [];
  }

  states(): Record<string, PriceState> {
    const out: Record<string, PriceState> = {};
    for (const [coin, m] of this.markets) out[coin] = { ...m.price };
    return out;
  }

  setPrice(): void {
    throw new Error("a replaying world takes its prices from the recording");
  }

  addScenario(): void {
    throw new Error("a replaying world takes its prices from the recording");
  }
}

/** Index of the first candle that has not closed by `atMs` (candles before it are the past). */
function firstNotClosed(candles: readonly RecordedCandle[], atMs: number): number {
  let lo = 0;
  let hi = candles.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (candles[mid]!.t + MINUTE_MS <= atMs) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function lastAtOrBefore(books: readonly { time: number }[], atMs: number): number {
  let i = -1;
  while (i + 1 < books.length && books[i + 1]!.time <= atMs) i++;
  return i;
}

function bookMid(rec: RecordedMarket, i: number): number {
  const b = rec.books[i]!;
  const bid = Number(b.bids[0]?.px ?? Number.NaN);
  const ask = Number(b.asks[0]?.px ?? Number.NaN);
  if (bid > 0 && ask > 0) return (bid + ask) / 2;
  return bid > 0 ? bid : ask;
}

function toQuotes(rec: RecordedMarket, i: number): HouseQuote[] {
  const b = rec.books[i]!;
  return [
    ...b.bids.map((l) => ({ isBuy: true, px: l.px, sz: l.sz })),
    ...b.asks.map((l) => ({ isBuy: false, px: l.px, sz: l.sz })),
  ];
}
