import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { D } from "../../../src/core/decimal.ts";
import { fmtScaled, mulDiv, parseScaled } from "../../../src/sim/venue/fixed.ts";

/** Reference: what parseScaled must return, computed with decimal.js. */
function reference(s: string, dp: number) {
  if (!/^\d+(\.\d*)?$/.test(s)) return null;
  const d = new D(s);
  if (d.decimalPlaces() > dp) return null;
  const scaled = d.mul(new D(10).pow(dp));
  if (!scaled.lte(Number.MAX_SAFE_INTEGER)) return null;
  const digits = d.isZero() ? "" : d.toFixed().replace(".", "").replace(/^0+/, "");
  return { scaled: scaled.toNumber(), sigFigs: digits.length, isInteger: d.isInteger() };
}

describe("fixed-point helpers", () => {
  it("parses decimal strings exactly like decimal.js would", () => {
    const digitString = fc.string({ unit: fc.constantFrom("0", "1", "5", "9"), minLength: 1, maxLength: 9 });
    const arb = fc.tuple(
      digitString,
      fc.option(fc.string({ unit: fc.constantFrom("0", "3", "7"), maxLength: 8 })),
      fc.integer({ min: 0, max: 8 }),
    );
    fc.assert(
      fc.property(arb, ([int, frac, dp]) => {
        const s = frac === null ? int : `${int}.${frac}`;
        expect(parseScaled(s, dp)).toEqual(reference(s, dp));
      }),
      { numRuns: 2000 },
    );
  });

  it("refuses malformed input", () => {
    for (const s of ["", ".5", "-1", "1e5", "1.2.3", " 1", "0x10", "1,5", "abc"])
      expect(parseScaled(s, 6)).toBeNull();
    expect(parseScaled(12.5, 2)).toEqual({ scaled: 1250, sigFigs: 3, isInteger: false });
  });

  it("renders scaled integers without trailing zeros and rounds mulDiv exactly past 2^53", () => {
    expect(fmtScaled(1_500_000, 6)).toBe("1.5");
    expect(fmtScaled(-42, 3)).toBe("-0.042");
    expect(fmtScaled(0, 4)).toBe("0");
    expect(mulDiv(7, 1, 2, "round")).toBe(4);
    expect(mulDiv(7, 1, 2, "floor")).toBe(3);
    expect(mulDiv(6, 1, 4, "ceil")).toBe(2);
    expect(mulDiv(2 ** 52, 9, 10, "floor")).toBe(Number((2n ** 52n * 9n) / 10n));
  });
});
