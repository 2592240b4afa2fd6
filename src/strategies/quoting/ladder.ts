import type { MarketSnapshot, OrderIntent } from "../sdk.ts";
import { limitExposure, passive, quote } from "../util.ts";
import type { QuoteLevel } from "./engine.ts";

/**
 * Turns ladder levels into post-only quotes (bid0, ask0, bid1, ask1, …), kept passive against the
 * book and limited by inventory: the adding side stops at the limit, the unwinding side keeps quoting.
 */
export function ladderOrders(
  levels: readonly QuoteLevel[],
  s: MarketSnapshot,
  tags: { bid: string; ask: string },
  inventory: number,
  invLimit: number,
  reduceOnly: boolean,
): OrderIntent[] {
  const raw: OrderIntent[] = [];
  for (const l of levels) {
    if (l.bidSize > 0) raw.push(quote("buy", passive("buy", l.bid, s), l.bidSize, tags.bid));
    if (l.askSize > 0) raw.push(quote("sell", passive("sell", l.ask, s), l.askSize, tags.ask));
  }
  return limitExposure(raw, inventory, invLimit, reduceOnly);
}
