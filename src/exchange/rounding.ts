import { D, type Dec, type DecLike, dec, wire } from "../core/decimal.ts";

/**
 * Hyperliquid's tick and lot rules, applied in decimal before signing (a float-formatted price is
 * how orders get refused as off-tick):
 *   price: at most 5 significant figures and at most (6 − szDecimals) decimals on perps
 *          (8 − szDecimals on spot); integers are always allowed;
 *   size:  at most szDecimals decimals.
 */

type RoundingMode = "down" | "up" | "nearest";

const MODES = { down: D.ROUND_DOWN, up: D.ROUND_UP, nearest: D.ROUND_HALF_EVEN } as const;

export class RoundingError extends RangeError {
  override name = "RoundingError";
}

/** Decimals a price of this magnitude may carry. */
export function priceDecimals(price: Dec, szDecimals: number, market: "perp" | "spot" = "perp"): number {
  const maxDecimals = Math.max((market === "perp" ? 6 : 8) - szDecimals, 0);
  const magnitude = price.abs().e; // floor(log10(|price|))
  return Math.max(0, Math.min(maxDecimals, 4 - magnitude));
}

/**
 * A valid price near `price`. `down`/`up` round toward zero/away from zero, so a buy limit rounded
 * down (a sell rounded up) is never worse than asked. Throws RoundingError if nothing positive is left.
 */
export function roundPrice(
  price: DecLike,
  szDecimals: number,
  mode: RoundingMode = "nearest",
  market: "perp" | "spot" = "perp",
): string {
  const p = dec(price);
  if (!p.isFinite() || p.lte(0)) throw new RoundingError(`price must be positive, got ${p.toString()}`);
  let out = p.toDecimalPlaces(priceDecimals(p, szDecimals, market), MODES[mode]);
  // Rounding may cross a power of ten (9.99995 → 10.0000): re-apply the rule at the new magnitude.
  out = out.toDecimalPlaces(priceDecimals(out, szDecimals, market), MODES[mode]);
  if (out.lte(0)) throw new RoundingError(`price ${p.toString()} is below the smallest tick`);
  return wire(out);
}

/** A valid size: `szDecimals` decimals, rounded toward zero by default (never more than asked). */
export function roundSize(size: DecLike, szDecimals: number, mode: RoundingMode = "down"): string {
  const s = dec(size);
  if (!s.isFinite() || s.lte(0)) throw new RoundingError(`size must be positive, got ${s.toString()}`);
  const out = s.toDecimalPlaces(szDecimals, MODES[mode]);
  if (out.lte(0)) {
    throw new RoundingError(
      `size ${s.toString()} is below the minimum lot ${wire(new D(10).pow(-szDecimals))}`,
    );
  }
  return wire(out);
}

/** True when `price` already satisfies the tick rules (what the exchange checks). */
export function isValidPrice(price: DecLike, szDecimals: number, market: "perp" | "spot" = "perp"): boolean {
  const p = dec(price);
  if (!p.isFinite() || p.lte(0)) return false;
  if (p.isInteger()) return true;
  return p.decimalPlaces() <= priceDecimals(p, szDecimals, market) && p.precision(true) <= 5;
}

/** A marketable limit price: `mid·(1 ± slippage)` (buy: +, sell: −), rounded toward the touch. */
export function slippagePrice(
  reference: DecLike,
  side: "buy" | "sell",
  slippage: DecLike,
  szDecimals: number,
): string {
  const ref = dec(reference);
  const factor = side === "buy" ? new D(1).plus(dec(slippage)) : new D(1).minus(dec(slippage));
  return roundPrice(ref.times(factor), szDecimals, side === "buy" ? "down" : "up");
}
