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

export interface ParsedDecimal {
  /** The value scaled by 10^dp. */
  scaled: number;
  /** Significant figures of the written value (trailing zeros of the fraction ignored). */
  sigFigs: number;
  isInteger: boolean;
}

/**
 * Parse a non-negative decimal string ("123", "0.0150") into an integer at scale 10^dp; null when it
 * is malformed, has more than dp decimals (after dropping trailing zeros) or leaves the safe range.
 * A hand-written scanner: this runs for every price and size on the order hot path.
 */
export function parseScaled(input: unknown, dp: number): ParsedDecimal | null {
  const s = typeof input === "number" ? numberToPlain(input) : input;
  if (typeof s !== "string" || s.length === 0) return null;
  const n = s.length;
  let i = 0;
  let intVal = 0;
  let intDigits = 0; // significant integer digits (leading zeros skipped)
  for (; i < n; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) break;
    if (intDigits > 0 || c !== 0) intDigits++;
    intVal = intVal * 10 + c;
  }
  if (i === 0) return null;
  let fracEnd = i;
  let fracStart = i;
  if (i < n) {
    if (s.charCodeAt(i) !== 46) return null; // "."
    fracStart = i + 1;
    for (i = fracStart; i < n; i++) {
      const c = s.charCodeAt(i) - 48;
      if (c < 0 || c > 9) return null;
    }
    fracEnd = n;
    while (fracEnd > fracStart && s.charCodeAt(fracEnd - 1) === 48) fracEnd--;
  }
  const fracLen = fracEnd - fracStart;
  if (fracLen > dp) return null;
  let fracVal = 0;
  let fracSig = 0; // digits of the fraction that count as significant
  for (let k = fracStart; k < fracEnd; k++) {
    const c = s.charCodeAt(k) - 48;
    fracVal = fracVal * 10 + c;
    if (intDigits > 0 || fracSig > 0 || c !== 0) fracSig++;
  }
  const scaled = intVal * POW10[dp]! + fracVal * POW10[dp - fracLen]!;
  if (!Number.isSafeInteger(scaled) || intDigits > 15) return null;
  return { scaled, sigFigs: intDigits + fracSig, isInteger: fracLen === 0 };
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

/** Traded volume as the exchange prints it in refusals: dollars, at most two decimals ("0", "890168.23"). */
export function tradedUsd(volumeMicro: number): string {
  return fmtScaled(Math.floor(volumeMicro / 10_000), 2);
}
