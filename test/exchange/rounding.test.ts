import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { D } from "../../src/core/decimal.ts";
import {
  isValidPrice,
  RoundingError,
  roundPrice,
  roundSize,
  slippagePrice,
} from "../../src/exchange/rounding.ts";

/** Positive decimals across many magnitudes, as strings. */
const positiveDecimal = fc
  .tuple(fc.integer({ min: 1, max: 999_999_999 }), fc.integer({ min: -12, max: 4 }))
  .map(([mantissa, exp]) => new D(mantissa).times(new D(10).pow(exp)).toFixed());
const szDecimals = fc.integer({ min: 0, max: 6 });

describe("roundPrice", () => {
  it.each([
    ["2500.123", 4, "nearest", "2500.1"],
    ["2500.15", 4, "up", "2500.2"],
    ["2500.19", 4, "down", "2500.1"],
    ["123456.7", 0, "nearest", "123457"], // integers are always allowed, whatever their sig figs
    ["0.000123456", 0, "nearest", "0.000123"], // 6 − szDecimals decimals
    ["0.0123456", 2, "down", "0.0123"],
    ["1.234567", 5, "nearest", "1.2"],
    ["9.99996", 0, "nearest", "10"],
    ["99999.5", 0, "nearest", "100000"],
    ["43210.987", 5, "down", "43210"],
  ] as const)("%s (szDecimals %d, %s) → %s", (price, sz, mode, expected) => {
    expect(roundPrice(price, sz, mode)).toBe(expected);
  });

  it("refuses what rounds to nothing", () => {
    expect(() => roundPrice("0.0000001", 0, "down")).toThrow(RoundingError);
    expect(() => roundPrice("0", 2)).toThrow(RoundingError);
    expect(() => roundPrice("-5", 2)).toThrow(RoundingError);
  });

  it("always yields a price the exchange accepts (≤ 5 sig figs, ≤ 6 − szDecimals decimals, or an integer)", () => {
    fc.assert(
      fc.property(
        positiveDecimal,
        szDecimals,
        fc.constantFrom("down", "up", "nearest" as const),
        (price, sz, mode) => {
          let out: string;
          try {
            out = roundPrice(price, sz, mode);
          } catch (e) {
            expect(e).toBeInstanceOf(RoundingError);
            return;
          }
          const d = new D(out);
          expect(isValidPrice(out, sz)).toBe(true);
          if (!d.isInteger()) {
            expect(d.decimalPlaces()).toBeLessThanOrEqual(6 - sz);
            expect(d.precision()).toBeLessThanOrEqual(5);
          }
          expect(out).not.toMatch(/e/i);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("rounds in the asked direction and stays close (within one tick)", () => {
    fc.assert(
      fc.property(positiveDecimal, szDecimals, (price, sz) => {
        const p = new D(price);
        let down: string;
        let up: string;
        try {
          down = roundPrice(price, sz, "down");
          up = roundPrice(price, sz, "up");
        } catch {
          return;
        }
        expect(new D(down).lte(p)).toBe(true);
        expect(new D(up).gte(p)).toBe(true);
        // one tick at this magnitude is ≤ p·1e-4 (5 sig figs) or the decimal limit
        const tick = D.max(p.times("1e-4"), new D(10).pow(-(6 - sz)));
        expect(new D(up).minus(down).lte(tick.times(1.0001))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("is idempotent on valid prices", () => {
    fc.assert(
      fc.property(positiveDecimal, szDecimals, (price, sz) => {
        let once: string;
        try {
          once = roundPrice(price, sz);
        } catch {
          return;
        }
        expect(roundPrice(once, sz, "down")).toBe(once);
        expect(roundPrice(once, sz, "up")).toBe(once);
      }),
    );
  });
});

describe("roundSize", () => {
  it("truncates to szDecimals and refuses dust", () => {
    expect(roundSize("0.123456", 4)).toBe("0.1234");
    expect(roundSize("12", 0)).toBe("12");
    expect(roundSize("12.9", 0)).toBe("12");
    expect(() => roundSize("0.00009", 4)).toThrow(/below the minimum lot 0.0001/);
  });

  it("never rounds above the asked size and keeps at most szDecimals decimals", () => {
    fc.assert(
      fc.property(positiveDecimal, szDecimals, (size, sz) => {
        let out: string;
        try {
          out = roundSize(size, sz);
        } catch (e) {
          expect(e).toBeInstanceOf(RoundingError);
          return;
        }
        expect(new D(out).lte(size)).toBe(true);
        expect(new D(out).decimalPlaces()).toBeLessThanOrEqual(sz);
        expect(new D(size).minus(out).lt(new D(10).pow(-sz))).toBe(true);
      }),
    );
  });
});

describe("slippagePrice", () => {
  it("prices a buy above and a sell below the reference, rounded toward it", () => {
    expect(slippagePrice("2500.1", "buy", "0.001", 4)).toBe("2502.6");
    expect(slippagePrice("2500.1", "sell", "0.001", 4)).toBe("2497.6");
  });

  it("stays marketable and within the slippage for on-tick references", () => {
    fc.assert(
      fc.property(positiveDecimal, szDecimals, fc.constantFrom("0.001", "0.01", "0.05"), (raw, sz, slip) => {
        let ref: string;
        try {
          ref = roundPrice(raw, sz);
        } catch {
          return;
        }
        const buy = new D(slippagePrice(ref, "buy", slip, sz));
        const sell = slippagePrice(ref, "sell", slip, sz);
        expect(buy.gte(ref)).toBe(true);
        expect(buy.lte(new D(ref).times(new D(1).plus(slip)))).toBe(true);
        expect(new D(sell).lte(ref)).toBe(true);
      }),
    );
  });
});
