import { D, type Dec } from "../core/decimal.ts";
import type { Side } from "../strategies/sdk.ts";

/**
 * How an order fills inside one candle, when all the replay knows is its open, high, low, close and
 * volume. Conservative on purpose (a backtest that flatters a strategy is worse than none):
 * - A resting limit fills only when the market traded THROUGH its price: a buy when the low is
 *   strictly below it, a sell when the high is strictly above it. Touching the price is not enough
 *   (the queue ahead at that price may have absorbed every trade). It fills at its own price, as a
 *   maker — also when the candle opens beyond it (a gap: the market passed through its price on the
 *   way, and a resting order never gets a better price than its own).
 * - An order that takes (IOC, or a limit through the touch when it arrives) fills at the touch it
 *   meets (the caller's reference: one tick from the price at that moment) moved against it by the
 *   slippage, as a taker; when that price is beyond its limit it does not take (an IOC lapses): the
 *   slippage is a cost of execution, and a limit bounds it as it would live.
 * - Either way, our orders together fill at most a share of the candle's volume (the participation
 *   cap, see ReplayVenue); what is left of an IOC lapses, what is left of a resting order rests.
 * The caller decides which candles an order lives in (see ReplayVenue: arrival rounds up to the next
 * open).
 */
export interface CandleBar {
  o: number;
  h: number;
  l: number;
}

type CandleFill = { px: number; liquidity: "maker" | "taker" } | null;

/** Default participation cap: our fills in a candle are at most this share of its volume. */
export const DEFAULT_PARTICIPATION = 0.1;

/**
 * The most whole lots within `most` (a share of volume or of a trade, as a float): rounding noise
 * (0.1 × 30 = 3.0000000000000004, or 2.9999999999999996) never costs a lot. Zero when under one lot.
 */
export function wholeLots(most: number, szDecimals: number): Dec {
  const scale = 10 ** szDecimals;
  const lots = Math.floor(most * scale + 1e-6);
  return lots > 0 ? new D(lots).div(scale) : new D(0);
}

/** The taker's price: `reference` moved against it by the slippage; no fill when that passes its limit. */
export function takerFill(side: Side, limit: number, reference: number, slippageBps: number): CandleFill {
  const px = side === "buy" ? reference * (1 + slippageBps / 10_000) : reference * (1 - slippageBps / 10_000);
  if (side === "buy" ? px > limit : px < limit) return null;
  return { px, liquidity: "taker" };
}

/** True when the limit is marketable at this price (a buy at or above it, a sell at or below). */
export function crossesPrice(side: Side, limit: number, px: number): boolean {
  return side === "buy" ? limit >= px : limit <= px;
}

/** A resting limit's fill: only when the candle traded strictly through its price (a gap included). */
export function makerFill(side: Side, limit: number, bar: CandleBar): CandleFill {
  const through = side === "buy" ? bar.l < limit : bar.h > limit;
  return through ? { px: limit, liquidity: "maker" } : null;
}
