import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { floorSz, roundPx, stepPx, tickExponent } from "../../../src/sim/model/price-grid.ts";

function sigFigs(s: string): number {
  const digits = s.replace("-", "").replace(".", "").replace(/^0+/, "");
  return s.includes(".") ? digits.length : digits.replace(/0+$/, "").length;
}

describe("price grid", () => {
  it("rounds to 5 significant figures and at most 6 - szDecimals decimals", () => {
    expect(roundPx(97123.456, 5, "down")).toBe("97123");
    expect(roundPx(97123.456, 5, "up")).toBe("97124");
    expect(roundPx(3412.345, 4, "nearest")).toBe("3412.3");
    expect(roundPx(0.171234, 0, "down")).toBe("0.17123");
    expect(roundPx(0.0012345678, 1, "down")).toBe("0.00123");
    expect(tickExponent(180.5, 2)).toBe(-2);
  });

  it("produces valid prices on the right side of the input", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-4, max: 2e6, noNaN: true }),
        fc.integer({ min: 0, max: 5 }),
        (px, szd) => {
          const down = roundPx(px, szd, "down");
          const up = roundPx(px, szd, "up");
          for (const s of [down, up]) {
            const dec = s.includes(".") ? s.split(".")[1]!.length : 0;
            expect(dec).toBeLessThanOrEqual(6 - szd);
            if (s.includes(".")) expect(sigFigs(s)).toBeLessThanOrEqual(5);
          }
          expect(Number(down)).toBeLessThanOrEqual(px * (1 + 1e-12));
          expect(Number(up)).toBeGreaterThanOrEqual(px * (1 - 1e-12));
        },
      ),
    );
  });

  it("steps one tick and floors sizes", () => {
    expect(stepPx("97123", 5, 1)).toBe("97124");
    expect(stepPx("100.01", 2, -1)).toBe("100");
    expect(floorSz(1.23456789, 5)).toBe("1.23456");
    expect(floorSz(58823.9, 0)).toBe("58823");
  });
});
