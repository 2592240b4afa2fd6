/**
 * A perp delisted while it trades, as Hyperliquid does it (docs, Trading > Delisting): every open
 * order on it is cancelled (order status `delistedCanceled`), every position is settled at the
 * oracle's time-weighted average over the hour before the vote, and no order is accepted after.
 * A settlement shows as one fill per position, closing all of it: `dir` "Settlement", no fee, no
 * liquidation block (the shape reported from a live settlement in JKorf/HyperLiquid.Net#104). It
 * writes no ledger update; its PnL is the fill's `closedPnl`. `meta` then flags the market
 * `isDelisted`, and its mark stays at the settlement price.
 */
import type { VenueCore } from "./core.ts";
import type { Market } from "./types.ts";

interface DelistingResult {
  /** Settlement price at the price scale. */
  px: number;
  positionsSettled: number;
  ordersCancelled: number;
}

export function delistMarket(core: VenueCore, m: Market, now: number): DelistingResult {
  const px = m.oracleTwap.average(now) ?? m.oracle;
  m.spec = { ...m.spec, isDelisted: true };
  core.delistings.set(m, { px, time: now });
  let ordersCancelled = 0;
  for (const a of core.accounts.values()) {
    for (const o of [...a.open.values()]) {
      if (o.m !== m || o.status !== "open") continue;
      core.finish(o, "delistedCanceled", now);
      ordersCancelled++;
    }
  }
  // One L1 action settles the whole market: its fills share one hash.
  const hashSeq = ++core.hashSeq;
  let positionsSettled = 0;
  core.settling = true;
  try {
    for (const a of core.accounts.values()) {
      const p = a.positions.get(m.idx);
      if (!p || p.szi === 0) continue;
      const isBuy = p.szi < 0;
      const sz = Math.abs(p.szi);
      core.settle(a, m, isBuy, px, sz, 0, null, now, true, core.nextOid++, null, core.nextTid++, hashSeq);
      positionsSettled++;
    }
  } finally {
    core.settling = false;
  }
  freezeAt(m, px);
  core.emit({ kind: "allMids", dex: m.dex.name });
  return { px, positionsSettled, ordersCancelled };
}

/** A delisted market holds its settlement price: no book premium, no open interest left. */
export function freezeAt(m: Market, px: number): void {
  m.oracle = px;
  m.markEma = 0;
  m.openInterest = 0;
  m.backgroundOi = 0;
}
