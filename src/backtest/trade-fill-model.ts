import type { Side } from "../strategies/sdk.ts";

/**
 * Fills of a resting order from recorded trades and book snapshots, with queue position:
 * - when the order arrives, the size displayed at its price on its side of the latest book snapshot
 *   is ahead of it (nothing when it improves on the best price; a price the book does not show has
 *   nothing ahead);
 * - a trade at its price whose taker hit its side (a sell into a bid, a buy into an ask) first uses
 *   up the size ahead, and only what is left fills the order;
 * - a trade strictly through its price means the level was cleared: the order fills in full (up to
 *   the trade's size) at its own price;
 * - fills are at the order's price, as a maker.
 * A level whose displayed size later shrinks below the size still ahead is taken to have lost those
 * orders (cancels ahead move the order up), as the --dry-run paper book does. A level beyond the
 * recorded depth (the snapshot stops before reaching its price) is unknown, not empty: the queue
 * ahead stays what it was.
 * One trade's size is shared by all our orders (best price first): what one of them took is not
 * there for the next.
 */
export interface BookLevels {
  bids: readonly (readonly [number, number])[];
  asks: readonly (readonly [number, number])[];
}

export interface TradeEvent {
  px: number;
  sz: number;
  /** The taker's side: "buy" lifts asks, "sell" hits bids. */
  taker: Side;
}

/** Size displayed at `px` on the order's side of the book (0 when the price improves on the best or is not shown). */
export function sizeAhead(book: BookLevels | undefined, side: Side, px: number): number {
  return depthAt(book, side, px) ?? 0;
}

/**
 * Size displayed at `px` on the order's side: 0 when the price improves on the best or falls between
 * two shown levels; undefined when the snapshot does not reach that far (beyond its depth, or no side).
 */
export function depthAt(book: BookLevels | undefined, side: Side, px: number): number | undefined {
  if (!book) return undefined;
  const levels = side === "buy" ? book.bids : book.asks;
  for (const [lpx, lsz] of levels) {
    if (lpx === px) return lsz;
    if (side === "buy" ? lpx < px : lpx > px) return 0;
  }
  return undefined;
}

/**
 * One trade against a resting order with `queue` ahead and `remaining` size: the size it fills and
 * the queue left ahead afterwards.
 */
export function tradeAgainst(
  side: Side,
  px: number,
  queue: number,
  remaining: number,
  t: TradeEvent,
): { filled: number; queue: number } {
  const hitsOurSide = side === "buy" ? t.taker === "sell" : t.taker === "buy";
  if (!hitsOurSide) return { filled: 0, queue };
  const through = side === "buy" ? t.px < px : t.px > px;
  if (through) return { filled: Math.min(remaining, t.sz), queue: 0 };
  if (t.px !== px) return { filled: 0, queue };
  const left = t.sz - queue;
  if (left <= 0) return { filled: 0, queue: queue - t.sz };
  return { filled: Math.min(remaining, left), queue: 0 };
}
