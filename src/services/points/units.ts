import { D } from "../../core/decimal.ts";

/**
 * Exact fixed-point decimals on bigints: a decimal string is `units · 10^-dp`. Used by the points
 * scorer's hot loop; conversions to and from decimal.js happen only at its edges.
 */

const PLAIN = /^-?\d+(\.\d+)?$/;
const POWERS = Array.from({ length: 80 }, (_, i) => 10n ** BigInt(i));

/** 10^n as a bigint (table lookup for the usual range). */
export function pow10(n: number): bigint {
  return POWERS[n] ?? 10n ** BigInt(n);
}

/** Parse a decimal string exactly (exponent notation accepted, expanded through decimal.js). */
export function decimalUnits(s: string): { units: bigint; dp: number } {
  const text = PLAIN.test(s) ? s : plain(s);
  const dot = text.indexOf(".");
  if (dot < 0) return { units: BigInt(text), dp: 0 };
  return { units: BigInt(text.slice(0, dot) + text.slice(dot + 1)), dp: text.length - dot - 1 };
}

function plain(s: string): string {
  let d: InstanceType<typeof D>;
  try {
    d = new D(s);
  } catch {
    throw new RangeError(`not a decimal number: "${s}"`);
  }
  if (!d.isFinite()) throw new RangeError(`not a finite decimal: "${s}"`);
  return d.toFixed();
}

/** The value of a decimal string in units of 10^-dp; more decimals than dp is an error, never a rounding. */
export function unitsOf(s: string, dp: number): bigint {
  const v = decimalUnits(s);
  if (v.dp > dp) throw new RangeError(`"${s}" has more than ${dp} decimals`);
  return v.units * pow10(dp - v.dp);
}

/** Plain decimal string of units·10^-dp, without trailing zeros ("0" for zero). */
export function fromUnits(units: bigint, dp: number): string {
  const neg = units < 0n;
  const digits = (neg ? -units : units).toString().padStart(dp + 1, "0");
  const whole = digits.slice(0, digits.length - dp);
  const frac = digits.slice(digits.length - dp).replace(/0+$/, "");
  const body = frac ? `${whole}.${frac}` : whole;
  return neg && body !== "0" ? `-${body}` : body;
}

/** Canonical text of a decimal ("75000.0" → "75000", "0.0100" → "0.01"), for equality keys. */
export function canonicalDecimal(s: string): string {
  let t = PLAIN.test(s) ? s : plain(s);
  if (t.includes(".")) t = t.replace(/0+$/, "").replace(/\.$/, "");
  t = t.replace(/^(-?)0+(?=\d)/, "$1");
  return t === "-0" ? "0" : t;
}
