/**
 * Prices, sizes and rates are stored as DOUBLE (what a data scientist expects) and read back as
 * decimal strings. This is exact, without any float arithmetic: a decimal of at most 15 significant
 * digits parses to the nearest double, and that double's shortest round-trip form (String(x)) is the
 * same decimal. The reader returns the canonical form: "29258.0" is stored and read as "29258".
 * A value the double cannot hold exactly (more than 15 significant digits) is refused at write time.
 */

const DECIMAL = /^-?\d+(\.\d+)?$/;

/** The plain (never exponent) shortest decimal string of a double. */
export function doubleToDecimal(x: number): string {
  const s = String(x);
  if (!s.includes("e")) return s;
  if (!Number.isFinite(x)) throw new Error(`not a finite number: ${s}`);
  const negative = s.startsWith("-");
  const [mantissa, expText] = (negative ? s.slice(1) : s).split("e") as [string, string];
  const exp = Number(expText);
  const [intPart, fracPart = ""] = mantissa.split(".") as [string, string?];
  const digits = intPart + fracPart;
  const point = intPart.length + exp; // position of the decimal point within `digits`
  let out: string;
  if (point <= 0) out = `0.${"0".repeat(-point)}${digits}`;
  else if (point >= digits.length) out = digits + "0".repeat(point - digits.length);
  else out = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return negative ? `-${out}` : out;
}

/** "029258.50" → "29258.5", "-0.0" → "0": the form doubleToDecimal gives back. */
export function canonicalDecimal(s: string): string {
  if (!DECIMAL.test(s)) throw new Error(`not a decimal string: "${s}"`);
  const negative = s.startsWith("-");
  const body = negative ? s.slice(1) : s;
  const [intRaw, fracRaw = ""] = body.split(".") as [string, string?];
  const intPart = intRaw.replace(/^0+(?=\d)/, "");
  const fracPart = fracRaw.replace(/0+$/, "");
  const out = fracPart ? `${intPart}.${fracPart}` : intPart;
  return negative && out !== "0" ? `-${out}` : out;
}

/** The double of a decimal string, refusing one whose value the double would not hold exactly. */
export function decimalToDouble(s: string): number {
  const canonical = canonicalDecimal(s);
  const x = Number(canonical);
  if (doubleToDecimal(x) !== canonical)
    throw new Error(
      `decimal "${s}" has more significant digits than a stored double keeps exactly (at most 15 are always kept)`,
    );
  return x;
}
