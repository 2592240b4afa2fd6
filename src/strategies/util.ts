import type { MarketSnapshot, OrderIntent, Side } from "./sdk.ts";

/** Small numeric helpers shared by the strategies (all pure). */

export const BPS = 10_000;

export function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}

export function mean(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/** Population standard deviation. */
export function stdev(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  const m = mean(xs);
  let v = 0;
  for (const x of xs) v += (x - m) * (x - m);
  return Math.sqrt(v / xs.length);
}

/** Appends to a copy of a rolling window, keeping the last `max` entries. */
export function pushWindow<T>(xs: readonly T[], x: T, max: number): T[] {
  // Filled by index into an array of the final length: one allocation, none for growth.
  const from = xs.length >= max ? xs.length - max + 1 : 0;
  const n = xs.length - from;
  const next: T[] = new Array(n + 1);
  for (let i = 0; i < n; i++) next[i] = xs[from + i] as T;
  next[n] = x;
  return next;
}

/** Log returns of consecutive positive prices. */
export function logReturns(prices: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < prices.length; i++) {
    const a = prices[i - 1]!;
    const b = prices[i]!;
    if (a > 0 && b > 0) out.push(Math.log(b / a));
  }
  return out;
}

/** A usable market: positive mid with a sane two-sided top of book. */
export function hasMarket(s: MarketSnapshot): boolean {
  return s.mid > 0 && Number.isFinite(s.mid);
}

/**
 * Keeps a resting quote passive: a bid strictly below the best ask and an ask strictly above the best
 * bid (the engine rounds bids down and asks up to the price grid, which preserves this).
 */
export function passive(side: Side, price: number, s: MarketSnapshot): number {
  const gap = s.mid * 1e-5;
  if (side === "buy" && s.ask > 0) return Math.min(price, s.ask - gap);
  if (side === "sell" && s.bid > 0) return Math.max(price, s.bid + gap);
  return price;
}

/**
 * Inventory limit for a set of intents: buys may add at most `maxInventory − q` in total (more when
 * short, because part of it unwinds), sells at most `maxInventory + q`. In reduce-only mode only the
 * unwinding side survives, capped at |q|. Orders are kept in the given order (closest first) and the
 * last one that crosses the limit is trimmed.
 */
export function limitExposure(
  orders: readonly OrderIntent[],
  q: number,
  maxInventory: number,
  reduceOnly: boolean,
): OrderIntent[] {
  let buyRoom = reduceOnly ? Math.max(0, -q) : Math.max(0, maxInventory - q);
  let sellRoom = reduceOnly ? Math.max(0, q) : Math.max(0, maxInventory + q);
  const out: OrderIntent[] = [];
  for (const o of orders) {
    const room = o.side === "buy" ? buyRoom : sellRoom;
    const size = Math.min(o.size, room);
    if (size <= 1e-12) continue;
    out.push(size === o.size ? o : { ...o, size });
    if (o.side === "buy") buyRoom -= size;
    else sellRoom -= size;
  }
  return out;
}

export function quote(
  side: Side,
  price: number,
  size: number,
  tag: string,
  tif: "Alo" | "Gtc" = "Alo",
): OrderIntent {
  return { side, price, size, tif, tag };
}

export function take(side: Side, price: number, size: number, tag: string, reduceOnly = false): OrderIntent {
  return reduceOnly
    ? { side, price, size, tif: "Ioc", tag, reduceOnly }
    : { side, price, size, tif: "Ioc", tag };
}

/** Price that takes the touch plus `crossBps` (a marketable IOC limit bounded by the cross). */
export function takePrice(side: Side, s: MarketSnapshot, crossBps: number): number {
  const touch = side === "buy" ? (s.ask > 0 ? s.ask : s.mid) : s.bid > 0 ? s.bid : s.mid;
  return side === "buy" ? touch * (1 + crossBps / BPS) : touch * (1 - crossBps / BPS);
}
