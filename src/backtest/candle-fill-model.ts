import type { Side } from "../strategies/sdk.ts";

/**
 * How an order fills inside one candle, when all the replay knows is its open, high, low and close.
 * Conservative on purpose (a backtest that flatters a strategy is worse than none):
 * - A resting limit fills only when the market traded THROUGH its price: a buy when the low is
 *   strictly below it, a sell when the high is strictly above it. Touching the price is not enough
 *   (the queue ahead at that price may have absorbed every trade). It then fills in full, at its own
 *   price, as a maker.
 * - An order that would take (IOC, or a limit already through the open) fills at the open moved
 *   against it by the slippage, but never beyond its limit, as a taker; when the open itself is
 *   already beyond the limit (the market moved away) it does not fill.
 * The caller decides which candles an order lives in (see ReplayVenue: arrival rounds up to the next
 * open).
 */
export interface CandleBar {
  o: number;
  h: number;
  l: number;
}

export type CandleFill = { px: number; liquidity: "maker" | "taker" } | null;

/** The taker's price: the open moved against it by the slippage, capped at its limit. */
export function takerFill(side: Side, limit: number, bar: CandleBar, slippageBps: number): CandleFill {
  if (side === "buy" ? bar.o > limit : bar.o < limit) return null;
  const px =
    side === "buy"
      ? Math.min(limit, bar.o * (1 + slippageBps / 10_000))
      : Math.max(limit, bar.o * (1 - slippageBps / 10_000));
  return { px, liquidity: "taker" };
}

/** True when the limit is marketable at the open (it would take on arrival). */
export function crossesOpen(side: Side, limit: number, bar: CandleBar): boolean {
  return side === "buy" ? limit >= bar.o : limit <= bar.o;
}

/** A resting limit's fill: only when the candle traded strictly through its price. */
export function makerFill(side: Side, limit: number, bar: CandleBar): CandleFill {
  const through = side === "buy" ? bar.l < limit : bar.h > limit;
  return through ? { px: limit, liquidity: "maker" } : null;
}
