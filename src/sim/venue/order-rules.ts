/**
 * Hyperliquid's order-acceptance rules, with the exchange's own refusal texts (docs/exchange-rules.md
 * lists each rule, its text and where the text comes from). Pure functions over scaled integers
 * (fixed.ts): the sim venue (core.ts) and the --dry-run paper book (src/engine/paper-gateway.ts) both
 * call them, so the two refuse the same orders with the same words.
 */
import { fmtScaled, mulDiv, type ParsedDecimal, parseScaled } from "./fixed.ts";
import { type MarginTier, marginTiers } from "./markets.ts";
import type { Account, Market } from "./types.ts";

/** Micro-USDC per USD (core.ts imports this file, so its constant is not imported back). */
const MICRO = 1_000_000;

/** Hyperliquid's minimum order value: $10 (reduce-only orders are exempt), micro-USDC. */
const MIN_ORDER_NTL = 10 * MICRO;

/**
 * A delisted perp keeps its asset id, but the exchange halts it: every order on it is refused with
 * this text, before any other check.
 */
export function haltedRefusal(isDelisted: boolean): string | null {
  return isDelisted ? "Trading is halted." : null;
}

/** The leverage a market starts at for an account that never set one: 20× cross, or the market's maximum. */
export function defaultLeverage(maxLeverage: number): number {
  return Math.min(20, maxLeverage);
}

/** What both the venue and the dry-run book know of an order before it matches. */
interface OrderFacts {
  asset: number;
  /** Price decimals (6 − szDecimals) and size decimals of the market. */
  pxDec: number;
  szDec: number;
  /** The price and size as sent (decimal strings on the wire). */
  px: unknown;
  sz: unknown;
  isBuy: boolean;
  reduceOnly: boolean;
  /** Trigger (TP/SL) orders: no band, size 0 allowed when reduce-only, no reduce-only clamp yet. */
  trigger: boolean;
  /** The sender's position (lots, signed). */
  szi: number;
  /** The reference price of the band (the mark), at the price scale. */
  reference: number;
}

/**
 * Tick, lot, zero size, price band, reduce-only and the $10 minimum, in the venue's order. Accepted:
 * the scaled price and the size (a reduce-only order is cut to the position).
 */
export function checkOrder(f: OrderFacts): { px: number; sz: number } | { error: string } {
  const p = parseScaled(f.px, f.pxDec);
  if (!p || !validPx(p)) return { error: "Order has invalid price." };
  const s = parseScaled(f.sz, f.szDec);
  if (!s) return { error: "Order has invalid size." };
  // Size 0 is only meaningful for a reduce-only trigger: it closes the whole position when it fires.
  if (s.scaled === 0 && !(f.trigger && f.reduceOnly)) return { error: "Order has zero size." };
  const px = p.scaled;
  let sz = s.scaled;
  if (!f.trigger) {
    const far = priceBandRefusal(px, f.reference);
    if (far) return { error: far };
  }
  if (f.reduceOnly && !f.trigger) {
    if (f.szi === 0 || f.szi > 0 === f.isBuy)
      return { error: `Reduce only order would increase position. asset=${f.asset}` };
    sz = Math.min(sz, Math.abs(f.szi));
  } else if (!f.reduceOnly && px * sz < MIN_ORDER_NTL) {
    return { error: `Order must have minimum value of $10. asset=${f.asset}` };
  }
  return { px, sz };
}

/** At most 5 significant figures, unless the price is an integer (decimals are bounded by the parse). */
export function validPx(p: ParsedDecimal): boolean {
  return p.scaled > 0 && (p.isInteger || p.sigFigs <= 5);
}

/** A post-only order that would cross the book. */
export function aloRefusal(
  isBuy: boolean,
  px: number,
  bid: number | undefined,
  ask: number | undefined,
  pxDec: number,
  asset: number,
): string | null {
  const opp = isBuy ? ask : bid;
  if (opp === undefined || (isBuy ? px < opp : px > opp)) return null;
  const bbo = `${bid === undefined ? "0" : fmtScaled(bid, pxDec)}@${ask === undefined ? "0" : fmtScaled(ask, pxDec)}`;
  return `Post only order would have immediately matched, bbo was ${bbo}. asset=${asset}`;
}

/**
 * Initial margin (micro-USDC) the part of an order that increases the position needs: what it is
 * checked against, and what it holds while it rests.
 */
export function orderMargin(szi: number, isBuy: boolean, px: number, sz: number, lev: number): number {
  const inc = positionIncrease(szi, isBuy, sz);
  return inc === 0 ? 0 : mulDiv(px, inc, lev, "ceil");
}

/**
 * Positions and collateral as the exchange margins them (scaled integers: lots × price scale =
 * micro-USDC). A cross position's unrealized PnL and its initial margin at the mark count against
 * the account's free collateral; an isolated position instead holds its own margin, moved out of the
 * balance when it opens (at the fill price and the position's leverage) and back, pro rata, as it
 * closes. Orders are margined against the free collateral either way.
 */
export interface MarginedPosition {
  /** Signed size in lots. */
  szi: number;
  /** Cost basis of the open size, micro-USDC (≥ 0). */
  entryNtl: number;
  isolated: boolean;
  lev: number;
}

/** Unrealized PnL (micro-USDC) of a position at `mark` (price scale). */
export function unrealizedPnl(p: Pick<MarginedPosition, "szi" | "entryNtl">, mark: number): number {
  const value = Math.abs(p.szi) * mark;
  return p.szi > 0 ? value - p.entryNtl : p.entryNtl - value;
}

/** Initial margin (micro-USDC) a cross position holds at `mark`. */
export function crossPositionMargin(szi: number, mark: number, lev: number): number {
  return mulDiv(Math.abs(szi) * mark, 1, lev, "ceil");
}

/** Margin an isolated position takes from the balance as `q` lots open at `px`. */
export function isolatedOpenMargin(px: number, q: number, lev: number): number {
  return mulDiv(px, q, lev, "ceil");
}

/** Margin an isolated position gives back as `closeQ` of its `absSize` lots close. */
export function isolatedMarginReleased(isoMargin: number, closeQ: number, absSize: number): number {
  return closeQ === absSize ? isoMargin : mulDiv(isoMargin, closeQ, absSize, "floor");
}

/**
 * What must stay behind when USDC leaves margin, micro-USDC (Hyperliquid docs, *Trading → Margining*:
 * `transfer_margin_required = max(initial_margin_required, 0.1 * total_position_value)`): the
 * positions' initial margin at the mark, and at least a tenth of their value. One rule for an isolated
 * position's margin and for the cross account alike.
 */
function transferMarginRequired(initialMargin: number, value: number): number {
  return Math.max(initialMargin, mulDiv(value, 1, 10, "ceil"));
}

/**
 * USDC (micro) that may leave the cross account — `withdrawable`, and the ceiling of every transfer
 * out (usdSend, withdraw3, usdClassTransfer to spot): its equity (balance + the cross positions'
 * uPnL, which the docs let be withdrawn) less the margin resting orders hold and the transfer margin
 * requirement of its cross positions (`initialMargin` and `value` summed over them); never below 0.
 */
export function crossWithdrawable(
  equity: number,
  reserved: number,
  initialMargin: number,
  value: number,
): number {
  return Math.max(0, equity - reserved - transferMarginRequired(initialMargin, value));
}

/**
 * Whether margin already in place (`equity`, micro-USDC: an isolated position's margin + uPnL, or
 * the cross account's balance + uPnL less what resting orders hold) covers the transfer margin
 * requirement of positions whose initial margin and value are given — what a leverage decrease must
 * leave, since it moves no USDC (docs/exchange-rules.md, *Leverage*).
 */
export function holdsTransferMargin(equity: number, initialMargin: number, value: number): boolean {
  return equity >= transferMarginRequired(initialMargin, value);
}

/**
 * The most margin (micro-USDC) `updateIsolatedMargin` may take out of an isolated position worth
 * `value` at the mark: what its equity (margin + uPnL) holds above the transfer margin requirement,
 * and never more than the margin in it — a profit stays in the position until it is realized (the
 * stricter reading: the docs let uPnL be withdrawn, a client that caps at the margin put in reports
 * the exchange refusing more).
 */
export function removableIsolatedMargin(isoMargin: number, upnl: number, value: number, lev: number): number {
  const required = transferMarginRequired(mulDiv(value, 1, lev, "ceil"), value);
  return Math.max(0, Math.min(isoMargin, isoMargin + upnl - required));
}

/**
 * Free collateral for new orders (micro-USDC): the balance, plus each cross position's unrealized
 * PnL less its initial margin at its mark, less the margin resting orders hold.
 */
export function freeCollateral(
  cash: number,
  positions: Iterable<{ position: MarginedPosition; mark: number }>,
  reserved: number,
): number {
  let free = cash - reserved;
  for (const { position: p, mark } of positions) {
    if (p.isolated) continue;
    free += unrealizedPnl(p, mark) - crossPositionMargin(p.szi, mark, p.lev);
  }
  return free;
}

/** What a resting order still holds after `q` of its `sz` lots filled. */
export function restingMarginReleased(reserved: number, q: number, sz: number): number {
  return q === sz ? reserved : mulDiv(reserved, q, sz, "floor");
}

/** The free collateral (micro-USDC) cannot margin the order. */
export function marginRefusal(need: number, available: number, asset: number): string | null {
  return need > 0 && need > available ? `Insufficient margin to place order. asset=${asset}` : null;
}

/** An IOC (or market) order that found nothing to match. */
export function iocNoMatchText(asset: number): string {
  return `Order could not immediately match against any resting orders. asset=${asset}`;
}

/** How far (fraction of the reference price) a limit price may lie from it. */
const PRICE_BAND = 0.8;
/** Open orders: 1000, plus one per $5M traded, at most 5000; from 1000 on, reduce-only and trigger orders are refused. */
const BASE_OPEN_ORDERS = 1000;
const MAX_OPEN_ORDERS = 5000;
const VOLUME_PER_EXTRA_ORDER = 5_000_000 * MICRO;

/** Per-market caps (USD). The sim's stand-in for the exchange's open-interest caps and margin tiers. */
export interface MarketLimits {
  /** Open interest (longs × mark) beyond which no order may increase it. */
  openInterestCapUsd: number;
  /** Largest position allowed above half the market's max leverage (the upper margin tier). */
  maxPositionAtHighLeverageUsd: number;
}

export function defaultLimits(m: Market): MarketLimits {
  return {
    openInterestCapUsd: m.dex.openInterestCapUsd,
    maxPositionAtHighLeverageUsd: m.dexIndex === 0 ? 100_000_000 : 10_000_000,
  };
}

/** "Order price cannot be more than 80% away from the reference price" (the reference is the mark). */
function priceBandRefusal(px: number, reference: number): string | null {
  if (reference <= 0) return null;
  return Math.abs(px - reference) > PRICE_BAND * reference
    ? "Order price cannot be more than 80% away from the reference price"
    : null;
}

function openOrdersLimit(a: Account): number {
  return Math.min(MAX_OPEN_ORDERS, BASE_OPEN_ORDERS + Math.floor(a.volume / VOLUME_PER_EXTRA_ORDER));
}

export function openOrdersRefusal(a: Account, reduceOnlyOrTrigger: boolean): string | null {
  const open = a.open.size;
  if (open >= openOrdersLimit(a) || (reduceOnlyOrTrigger && open >= BASE_OPEN_ORDERS))
    return "Too many open orders";
  return null;
}

/** Lots by which an order would increase the account's absolute position if it filled in full. */
export function positionIncrease(szi: number, isBuy: boolean, sz: number): number {
  if (szi === 0 || szi > 0 === isBuy) return sz;
  return Math.max(0, sz - Math.abs(szi));
}

/** The absolute position (lots) after an order filled in full. */
export function positionAfter(szi: number, isBuy: boolean, sz: number): number {
  return Math.abs(szi + (isBuy ? sz : -sz));
}

/**
 * Open interest is counted in longs: it grows by whatever part of the order opens or extends a
 * position (the counterparty's side is unknown before matching, so the whole increase counts).
 */
export function openInterestRefusal(
  m: Market,
  limits: MarketLimits,
  increase: number,
  mark: number,
): string | null {
  if (increase === 0) return null;
  const capMicro = limits.openInterestCapUsd * MICRO;
  if ((m.openInterest + increase) * mark > capMicro)
    return `Order would increase open interest while open interest is capped asset=${m.asset}`;
  return null;
}

export function maxPositionRefusal(
  m: Market,
  limits: MarketLimits,
  absAfter: number,
  increase: number,
  lev: number,
  mark: number,
): string | null {
  if (increase === 0 || !beyondMarginTier(m, limits, absAfter, lev, mark)) return null;
  return `Order would cause position to exceed margin tier limit at current leverage asset=${m.asset}`;
}

/**
 * A position of `absLots` at `mark` is more than `lev` allows: past the notional from which the
 * market's margin table no longer allows it, or (the sim's stand-in cap) above half the market's
 * max leverage and larger than the upper tier's limit.
 */
export function beyondMarginTier(
  m: Market,
  limits: MarketLimits,
  absLots: number,
  lev: number,
  mark: number,
): boolean {
  const ntl = mulDiv(absLots, mark, 1, "floor");
  const atHighLeverage = lev * 2 > m.spec.maxLeverage;
  return (
    (atHighLeverage && ntl > limits.maxPositionAtHighLeverageUsd * MICRO) ||
    ntl >= tierBoundMicro(marginTiers(m.spec), lev)
  );
}

/** Notional (micro-USDC) from which the market's margin table no longer allows `lev`. */
function tierBoundMicro(tiers: readonly MarginTier[], lev: number): number {
  for (const t of tiers) if (t.maxLeverage < lev) return t.lowerBound * MICRO;
  return Number.POSITIVE_INFINITY;
}

/** A market order (FrontendMarket) with nothing on the other side. */
export function noLiquidityRefusal(m: Market, isBuy: boolean): string | null {
  return m.book.side(!isBuy).bestPx() === undefined
    ? `No liquidity available for market order. asset=${m.asset}`
    : null;
}
