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
