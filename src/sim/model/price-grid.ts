/**
 * Hyperliquid's price and size grid for perps: a price has at most 5 significant figures and at most
 * (6 − szDecimals) decimals, integers always allowed; a size has at most szDecimals decimals.
 */
type Rounding = "down" | "up" | "nearest";

/** Exponent of the price tick at `px` (tick = 10^exponent). */
export function tickExponent(px: number, szDecimals: number): number {
  const sigExp = Math.floor(Math.log10(px)) - 4;
  return Math.max(-(6 - szDecimals), Math.min(sigExp, 0));
}

function roundUnits(x: number, mode: Rounding): number {
  // A relative epsilon absorbs binary noise such as 12344.999999998 for 12345.
  const eps = Math.abs(x) * 1e-12;
  if (mode === "down") return Math.floor(x + eps);
  if (mode === "up") return Math.ceil(x - eps);
  return Math.round(x);
}

/** Plain decimal string of n × 10^exponent, without trailing zeros. */
function scaledToString(n: number, exponent: number): string {
  if (exponent >= 0) return String(n * 10 ** exponent);
  const dp = -exponent;
  const neg = n < 0;
  const digits = String(Math.abs(n)).padStart(dp + 1, "0");
  const int = digits.slice(0, digits.length - dp).replace(/^0+(?=\d)/, "");
  const frac = digits.slice(digits.length - dp).replace(/0+$/, "");
  const out = frac ? `${int}.${frac}` : int;
  return neg && out !== "0" ? `-${out}` : out;
}

/** A valid order price near `px`, rounded as asked. */
export function roundPx(px: number, szDecimals: number, mode: Rounding): string {
  const e = tickExponent(px, szDecimals);
  return scaledToString(roundUnits(px / 10 ** e, mode), e);
}

/** The valid price one tick beyond `px` (a valid price string) in the given direction. */
export function stepPx(px: string, szDecimals: number, dir: 1 | -1): string {
  const v = Number(px);
  const e = tickExponent(dir > 0 ? v : v * (1 - 1e-9), szDecimals);
  return scaledToString(roundUnits(v / 10 ** e, "nearest") + dir, e);
}

/** A size rounded down to the market's size decimals. */
export function floorSz(sz: number, szDecimals: number): string {
  return scaledToString(roundUnits(sz * 10 ** szDecimals, "down"), -szDecimals);
}
