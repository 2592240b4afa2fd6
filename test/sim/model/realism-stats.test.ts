import { describe, expect, it } from "vitest";
import {
  buyCostBps,
  distribution,
  halfLifeOf,
  quantile,
  realisedVolAnnual,
  spreadBps,
  topOfBookDepthUsd,
} from "../../../src/sim/model/realism-stats.ts";

const HOUR = 3_600_000;

describe("realised volatility", () => {
  it("is the sample deviation of log returns scaled by √(periods a year)", () => {
    // Returns alternate +1 % and −1 % in log terms: mean 0, sample variance 4·(0.01)²/3.
    const closes = [100, 100 * Math.exp(0.01), 100, 100 * Math.exp(0.01), 100];
    const expected = Math.sqrt(((4 * 0.01 ** 2) / 3) * 8760);
    expect(realisedVolAnnual(closes, HOUR)).toBeCloseTo(expected, 10);
  });
  it("is zero for a constant drift and NaN without two returns", () => {
    expect(realisedVolAnnual([1, 2, 4, 8], HOUR)).toBeCloseTo(0, 12);
    expect(realisedVolAnnual([1, 2], HOUR)).toBeNaN();
  });
});

describe("book figures", () => {
  const book = {
    levels: [
      [
        { px: "99.9", sz: "10" },
        { px: "99.8", sz: "50" },
      ],
      [
        { px: "100.1", sz: "20" },
        { px: "100.2", sz: "5" },
      ],
    ] as [{ px: string; sz: string }[], { px: string; sz: string }[]],
  };
  it("spread in bps of the mid, from the best levels only", () => {
    expect(spreadBps(book)).toBeCloseTo(20, 10);
  });
  it("top-of-book depth averages the USD at best bid and best ask", () => {
    expect(topOfBookDepthUsd(book)).toBeCloseTo((999 + 2002) / 2, 10);
  });
  it("an empty side gives no figure", () => {
    const oneSided = { levels: [book.levels[0], []] as typeof book.levels };
    expect(spreadBps(oneSided)).toBeUndefined();
    expect(topOfBookDepthUsd(oneSided)).toBeUndefined();
  });
});

describe("quantiles", () => {
  it("interpolate between order statistics, whatever the input order", () => {
    const v = [5, 1, 4, 2, 3];
    expect(quantile(v, 0.5)).toBe(3);
    expect(quantile(v, 0.05)).toBeCloseTo(1.2, 12);
    expect(quantile(v, 0.95)).toBeCloseTo(4.8, 12);
    expect(distribution(v)).toEqual({ p5: quantile(v, 0.05), median: 3, p95: quantile(v, 0.95), n: 5 });
    expect(quantile([], 0.5)).toBeNaN();
  });
});

describe("walk cost and recovery half-life", () => {
  const book = {
    levels: [
      [{ px: "99", sz: "10" }],
      [
        { px: "101", sz: "10" },
        { px: "103", sz: "10" },
      ],
    ] as [{ px: string; sz: string }[], { px: string; sz: string }[]],
  };
  it("walks the asks: $2,030 buys $1,010 at 101 and $1,020 at 103 against a mid of 100", () => {
    const coins = 10 + 1020 / 103;
    expect(buyCostBps(book, 2_030)).toBeCloseTo((2_030 / coins / 100 - 1) * 10_000, 9);
    expect(buyCostBps(book, 500)).toBeCloseTo(100, 9);
    expect(buyCostBps(book, 1e9)).toBeUndefined();
  });
  it("finds when half of the first hole is back, between samples", () => {
    expect(halfLifeOf([0, 10, 20, 30], [1, 0.8, 0.4, 0.2])).toBeCloseTo(17.5, 9);
    expect(halfLifeOf([0, 1], [1, 1])).toBeNaN();
  });
});
