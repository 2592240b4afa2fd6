/** Internal records → the exchange's wire shapes (decimal strings). */
import { D } from "../../core/decimal.ts";
import { type Candle, type Interval, nextBucket } from "./candle-intervals.ts";
import { fmtScaled } from "./fixed.ts";
import { txHash } from "./hash.ts";
import type { Fill, FundingPayment, Market, Order } from "./types.ts";

export function renderFill(seed: number, f: Fill): Record<string, unknown> {
  const m = f.m;
  const out: Record<string, unknown> = {
    coin: m.coin,
    px: fmtScaled(f.px, m.pxDec),
    sz: fmtScaled(f.sz, m.szDec),
    side: f.isBuy ? "B" : "A",
    time: f.time,
    startPosition: fmtScaled(f.startPos, m.szDec),
    dir: f.dir,
    closedPnl: fmtScaled(f.closedPnl, 6),
    hash: txHash(seed, f.hashSeq),
    oid: f.oid,
    crossed: f.crossed,
    fee: fmtScaled(f.fee, 6),
  };
  if (f.builderFee > 0) out.builderFee = fmtScaled(f.builderFee, 6);
  out.tid = f.tid;
  out.feeToken = "USDC";
  out.twapId = null;
  if (f.cloid) out.cloid = f.cloid;
  if (f.liquidation) {
    out.liquidation = {
      liquidatedUser: f.liquidation.liquidatedUser,
      markPx: fmtScaled(f.liquidation.markPx, m.pxDec),
      method: f.liquidation.method,
    };
  }
  return out;
}

/** openOrders entry. */
export function renderOpenOrder(o: Order): Record<string, unknown> {
  const out: Record<string, unknown> = {
    coin: o.m.coin,
    side: o.isBuy ? "B" : "A",
    limitPx: fmtScaled(o.px, o.m.pxDec),
    sz: fmtScaled(o.sz, o.m.szDec),
    oid: o.oid,
    timestamp: o.ts,
    origSz: fmtScaled(o.origSz, o.m.szDec),
  };
  if (o.cloid) out.cloid = o.cloid;
  if (o.reduceOnly) out.reduceOnly = true;
  return out;
}

/** frontendOpenOrders / historicalOrders / orderStatus entry. */
export function renderFrontendOrder(o: Order): Record<string, unknown> {
  const t = o.trigger;
  const tpLabel = t?.tpsl === "tp" ? "Take Profit" : "Stop";
  return {
    coin: o.m.coin,
    side: o.isBuy ? "B" : "A",
    limitPx: fmtScaled(o.px, o.m.pxDec),
    sz: fmtScaled(o.sz, o.m.szDec),
    oid: o.oid,
    timestamp: o.ts,
    origSz: fmtScaled(o.origSz, o.m.szDec),
    triggerCondition: t ? `Price ${t.above ? "above" : "below"} ${fmtScaled(t.px, o.m.pxDec)}` : "N/A",
    isTrigger: t !== null,
    triggerPx: t ? fmtScaled(t.px, o.m.pxDec) : "0",
    children: waitingChildren(o).map(renderFrontendOrder),
    isPositionTpsl: o.tpsl?.grouping === "positionTpsl",
    reduceOnly: o.reduceOnly,
    orderType: t
      ? `${tpLabel} ${t.isMarket ? "Market" : "Limit"}`
      : o.tif === "FrontendMarket" || o.tif === "LiquidationMarket"
        ? "Market"
        : "Limit",
    tif: t ? null : o.tif,
    cloid: o.cloid,
  };
}

/** normalTpsl children still waiting for this order to fill (the exchange lists them under it). */
function waitingChildren(o: Order): Order[] {
  if (o.childOids.length === 0) return [];
  const out: Order[] = [];
  for (const oid of o.childOids) {
    const c = o.user.orders.get(oid);
    if (c?.status === "open" && c.tpsl?.waiting) out.push(c);
  }
  return out;
}

export function renderFunding(seed: number, p: FundingPayment): Record<string, unknown> {
  return {
    time: p.time,
    hash: txHash(seed, p.hashSeq),
    delta: {
      type: "funding",
      coin: p.m.coin,
      usdc: fmtScaled(p.usdc, 6),
      szi: fmtScaled(p.szi, p.m.szDec),
      fundingRate: p.fundingRate,
      nSamples: p.nSamples,
    },
  };
}

/** A ratio of two scaled integers as a decimal string, rounded to `dp` places. */
export function ratio(num: number, den: number, dp: number): string {
  if (den === 0) return "0";
  const v = new D(num).div(den).toDecimalPlaces(dp);
  return v.isZero() ? "0" : v.toFixed();
}

/** Candle wire shape: {t, T, s, i, o, c, h, l, v, n}. */
export function renderCandle(m: Market, interval: Interval, c: Candle): Record<string, unknown> {
  return {
    t: c.t,
    T: nextBucket(interval, c.t) - 1,
    s: m.coin,
    i: interval,
    o: fmtScaled(c.o, m.pxDec),
    c: fmtScaled(c.c, m.pxDec),
    h: fmtScaled(c.h, m.pxDec),
    l: fmtScaled(c.l, m.pxDec),
    v: fmtScaled(c.v, m.szDec),
    n: c.n,
  };
}
