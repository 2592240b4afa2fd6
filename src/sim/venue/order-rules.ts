/**
 * Hyperliquid's order-acceptance rules that go beyond parsing, with the exchange's own refusal
 * texts (docs/exchange-rules.md lists each rule, its text and where the text comes from). Pure
 * functions over the venue's scaled integers; core.ts calls them before an order matches.
 */
import { mulDiv } from "./fixed.ts";
import { type MarginTier, marginTiers } from "./markets.ts";
import type { Account, Market } from "./types.ts";

/** Micro-USDC per USD (core.ts imports this file, so its constant is not imported back). */
const MICRO = 1_000_000;

/** How far (fraction of the reference price) a limit price may lie from it. */
export const PRICE_BAND = 0.8;
/** Open orders: 1000, plus one per $5M traded, at most 5000; from 1000 on, reduce-only and trigger orders are refused. */
export const BASE_OPEN_ORDERS = 1000;
export const MAX_OPEN_ORDERS = 5000;
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
export function priceBandRefusal(px: number, reference: number): string | null {
  if (reference <= 0) return null;
  return Math.abs(px - reference) > PRICE_BAND * reference
    ? "Order price cannot be more than 80% away from the reference price"
    : null;
}

export function openOrdersLimit(a: Account): number {
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
  if (increase === 0) return null;
  const ntl = mulDiv(absAfter, mark, 1, "floor");
  const atHighLeverage = lev * 2 > m.spec.maxLeverage;
  if (
    (atHighLeverage && ntl > limits.maxPositionAtHighLeverageUsd * MICRO) ||
    ntl >= tierBoundMicro(marginTiers(m.spec), lev)
  )
    return `Order would cause position to exceed margin tier limit at current leverage asset=${m.asset}`;
  return null;
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
