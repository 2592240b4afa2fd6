/**
 * One side of a price-time-priority order book over integer prices. Prices are kept sorted with the
 * best price LAST so the hot path (consume the best level) is a pop, and each level is a FIFO queue
 * with lazy deletion (cancelled orders are skipped and compacted away).
 */

export interface Resting {
  px: number;
  /** Remaining size (lots). */
  sz: number;
  live: boolean;
}

class Level<T extends Resting> {
  orders: T[] = [];
  head = 0;
  /** Live size (lots) and live order count at this price. */
  total = 0;
  count = 0;
  constructor(readonly px: number) {}

  /** First live order in time priority, or undefined. */
  front(): T | undefined {
    const orders = this.orders;
    while (this.head < orders.length) {
      const o = orders[this.head]!;
      if (o.live) return o;
      this.head++;
    }
    return undefined;
  }

  compact(): void {
    if (this.head > 32 && this.head * 2 > this.orders.length) {
      this.orders = this.orders.slice(this.head);
      this.head = 0;
    } else if (this.orders.length > 64 && this.count * 4 < this.orders.length) {
      this.orders = this.orders.filter((o) => o.live);
      this.head = 0;
    }
  }

  *live(): Generator<T> {
    for (let i = this.head; i < this.orders.length; i++) {
      const o = this.orders[i]!;
      if (o.live) yield o;
    }
  }
}

export class BookSide<T extends Resting> {
  /** Ascending for bids, descending for asks: the best price is always the last element. */
  readonly prices: number[] = [];
  readonly levels = new Map<number, Level<T>>();
  constructor(readonly isBid: boolean) {}

  best(): Level<T> | undefined {
    const n = this.prices.length;
    return n === 0 ? undefined : this.levels.get(this.prices[n - 1]!);
  }

  bestPx(): number | undefined {
    const n = this.prices.length;
    return n === 0 ? undefined : this.prices[n - 1];
  }

  add(o: T): void {
    let lvl = this.levels.get(o.px);
    if (!lvl) {
      lvl = new Level<T>(o.px);
      this.levels.set(o.px, lvl);
      this.insertPrice(o.px);
    }
    lvl.orders.push(o);
    lvl.total += o.sz;
    lvl.count++;
  }

  /** Reduce a resting order by `q` lots after a fill; the order dies when it reaches zero. */
  fill(lvl: Level<T>, o: T, q: number): void {
    o.sz -= q;
    lvl.total -= q;
    if (o.sz === 0) {
      o.live = false;
      lvl.count--;
      lvl.head++;
      if (lvl.count === 0) this.dropLevel(lvl.px);
      else lvl.compact();
    }
  }

  /** Take a live order off the book (cancel). */
  remove(o: T): void {
    const lvl = this.levels.get(o.px);
    o.live = false;
    if (!lvl) return;
    lvl.total -= o.sz;
    lvl.count--;
    if (lvl.count === 0) this.dropLevel(o.px);
    else lvl.compact();
  }

  /** Levels from best to worst, at most `limit`. */
  *walk(limit = Number.POSITIVE_INFINITY): Generator<Level<T>> {
    let k = 0;
    for (let i = this.prices.length - 1; i >= 0 && k < limit; i--, k++)
      yield this.levels.get(this.prices[i]!)!;
  }

  get size(): number {
    return this.prices.length;
  }

  private dropLevel(px: number): void {
    this.levels.delete(px);
    const prices = this.prices;
    const n = prices.length;
    if (n > 0 && prices[n - 1] === px) {
      prices.pop();
      return;
    }
    const i = this.indexOf(px);
    if (i < n && prices[i] === px) prices.splice(i, 1);
  }

  private insertPrice(px: number): void {
    const prices = this.prices;
    const n = prices.length;
    // Common case: a new best price (or the first level) goes at the end.
    if (n === 0 || (this.isBid ? px > prices[n - 1]! : px < prices[n - 1]!)) {
      prices.push(px);
      return;
    }
    prices.splice(this.indexOf(px), 0, px);
  }

  /** First index whose price is not "before" px in this side's ordering (binary search). */
  private indexOf(px: number): number {
    const prices = this.prices;
    let lo = 0;
    let hi = prices.length;
    const bid = this.isBid;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const p = prices[mid]!;
      if (bid ? p < px : p > px) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

export class OrderBook<T extends Resting> {
  readonly bids = new BookSide<T>(true);
  readonly asks = new BookSide<T>(false);
  side(isBuy: boolean): BookSide<T> {
    return isBuy ? this.bids : this.asks;
  }
}
