import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { D, dec, num, wire } from "../../src/core/decimal.ts";

describe("decimal money", () => {
  it("adds without binary float error", () => {
    expect(wire(dec("0.1").plus("0.2"))).toBe("0.3");
    expect(0.1 + 0.2).not.toBe(0.3);
  });

  it("wire form is plain notation without trailing zeros", () => {
    expect(wire("1.2300")).toBe("1.23");
    expect(wire("0.00000001")).toBe("0.00000001");
    expect(wire("1e21")).toBe("1000000000000000000000");
    expect(wire("-0")).toBe("0");
  });

  it("a string already in wire form comes back as is; any other is parsed and printed", () => {
    const printed = (s: string) => {
      const d = new D(s);
      return d.isZero() ? "0" : d.toFixed();
    };
    const decimalText = fc
      .tuple(
        fc.constantFrom("", "-", "+"),
        fc.stringMatching(/^\d{1,25}$/),
        fc.option(fc.stringMatching(/^\d{0,25}$/)),
        fc.option(fc.integer({ min: -40, max: 40 })),
      )
      .map(
        ([sign, int, frac, exp]) =>
          `${sign}${int}${frac === null ? "" : `.${frac}`}${exp === null ? "" : `e${exp}`}`,
      )
      .filter((s) => !/\.$/.test(s) || s.length > 1);
    fc.assert(
      fc.property(decimalText, (s) => {
        expect(wire(s)).toBe(printed(s));
      }),
      { numRuns: 2000 },
    );
    for (const s of ["0", "-0", "-0.0", "00.5", "1.50", "-12.340", "1.", ".5", "+3", "1e3", "-0.000001"])
      expect(wire(s)).toBe(printed(s));
  });

  it("num rounds half-even at the given places", () => {
    expect(num("2.345", 2)).toBe(2.34);
    expect(num("2.355", 2)).toBe(2.36);
  });

  it("sums of cents are exact whatever the order", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1_000_000, max: 1_000_000 }), { maxLength: 200 }), (cents) => {
        const forward = cents.reduce((acc, c) => acc.plus(new D(c).div(100)), new D(0));
        const backward = [...cents].reverse().reduce((acc, c) => acc.plus(new D(c).div(100)), new D(0));
        const exact = cents.reduce((a, c) => a + c, 0);
        expect(forward.eq(backward)).toBe(true);
        expect(forward.mul(100).toNumber()).toBe(exact);
      }),
    );
  });
});
