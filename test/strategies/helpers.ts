import type { DecisionContext, MarketSnapshot } from "../../src/strategies/sdk.ts";

/** A snapshot with a one-level book at bid/ask (defaults: mid 2500, ±0.25). */
export function snap(over: Partial<MarketSnapshot> = {}): MarketSnapshot {
  const mid = over.mid ?? 2500;
  const bid = over.bid ?? (mid > 0 ? mid - 0.25 : 0);
  const ask = over.ask ?? (mid > 0 ? mid + 0.25 : 0);
  return {
    instrument: "ETH-PERP",
    timestampMs: 1_800_000_000_000,
    mid,
    bid,
    ask,
    book: mid > 0 ? { bids: [{ px: bid, sz: 10 }], asks: [{ px: ask, sz: 10 }] } : { bids: [], asks: [] },
    fundingRate: 0,
    openInterest: 0,
    volume24h: 0,
    candles: [],
    referenceFunding: {},
    ...over,
  };
}

export function ctx(over: Partial<DecisionContext> & { snapshot?: MarketSnapshot } = {}): DecisionContext {
  return {
    snapshot: snap(),
    positionQty: 0,
    avgEntryPrice: 0,
    unrealizedPnl: 0,
    realizedPnl: 0,
    openOrders: [],
    recentFills: [],
    risk: { reduceOnly: false, drawdownPct: 0 },
    tick: 0,
    tickSeconds: 10,
    nowMs: 1_800_000_000_000,
    ...over,
  };
}
