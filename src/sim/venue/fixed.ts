/**
 * Exact fixed-point helpers for the matching hot path. A market's prices are integers in units of
 * 10^-(6 - szDecimals) and sizes integers in units of 10^-szDecimals, so price × size is an integer
 * number of micro-USDC: money stays exact without decimal objects on every fill.
 */

export const POW10: readonly number[] = Array.from({ length: 16 }, (_, i) => 10 ** i);

/** Render an integer scaled by 10^dp as a plain decimal string without trailing zeros ("0" for zero). */
export function fmtScaled(n: number, dp: number): string {
  if (n === 0) return "0";
  const neg = n < 0;
  const a = neg ? -n : n;
  if (dp === 0) return neg ? `-${a}` : String(a);
  const scale = POW10[dp]!;
  const ip = Math.floor(a / scale);
  const fp = a - ip * scale;
  let out = String(ip);
  if (fp !== 0) {
    let fs = String(fp).padStart(dp, "0");
    let end = fs.length;
    while (end > 0 && fs.charCodeAt(end - 1) === 48) end--;
    fs = fs.slice(0, end);
    out += `.${fs}`;
  }
  return neg ? `-${out}` : out;
}

const DECIMAL_RE = /^(\d+)(?:\.(\d*))?$/;

export interface ParsedDecimal {
  /** The value scaled by 10^dp. */
  scaled: number;
  /** Significant figures of the written value (trailing zeros of the fraction ignored). */
  sigFigs: number;
  isInteger: boolean;
}

/** Parse a non-negative decimal string into an integer at scale 10^dp; null when it has more decimals or is malformed. */
export function parseScaled(input: unknown, dp: number): ParsedDecimal | null {
  const s = typeof input === "number" ? numberToPlain(input) : input;
  if (typeof s !== "string") return null;
  const m = DECIMAL_RE.exec(s);
  if (!m) return null;
  const intDigits = m[1]!.replace(/^0+/, "");
  const frac = (m[2] ?? "").replace(/0+$/, "");
  if (frac.length > dp) return null;
  const scaled = Number(intDigits || "0") * POW10[dp]! + (frac ? Number(frac.padEnd(dp, "0")) : 0);
  if (!Number.isSafeInteger(scaled)) return null;
  const digits = (intDigits + frac).replace(/^0+/, "");
  return { scaled, sigFigs: digits.length, isInteger: frac.length === 0 };
}

function numberToPlain(n: number): string | null {
  if (!Number.isFinite(n) || n < 0) return null;
  const s = String(n);
  return /e/i.test(s) ? null : s;
}

/** a × b / c for non-negative integers, rounded as asked; exact even past 2^53 (falls back to bigint). */
export function mulDiv(a: number, b: number, c: number, mode: "floor" | "ceil" | "round"): number {
  const p = a * b;
  if (Number.isSafeInteger(p)) {
    const q = Math.floor(p / c);
    const r = p - q * c;
    if (r === 0) return q;
    if (mode === "floor") return q;
    if (mode === "ceil") return q + 1;
    return 2 * r >= c ? q + 1 : q;
  }
  const bp = BigInt(a) * BigInt(b);
  const bc = BigInt(c);
  const q = bp / bc;
  const r = bp - q * bc;
  if (r === 0n || mode === "floor") return Number(q);
  if (mode === "ceil") return Number(q + 1n);
  return Number(2n * r >= bc ? q + 1n : q);
}

/** Signed variant of mulDiv (rounds the magnitude). */
export function mulDivSigned(a: number, b: number, c: number, mode: "floor" | "ceil" | "round"): number {
  const neg = a < 0 !== b < 0;
  const v = mulDiv(Math.abs(a), Math.abs(b), c, mode);
  return neg ? -v : v;
}
