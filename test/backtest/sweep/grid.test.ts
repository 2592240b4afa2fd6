import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { expandGrid, MAX_GRID_POINTS, parseSweep } from "../../../src/backtest/sweep/grid.ts";
import { rankRuns } from "../../../src/backtest/sweep/rank.ts";
import { walkForwardFolds } from "../../../src/backtest/sweep/walk-forward.ts";
import { UserError } from "../../../src/core/errors.ts";

describe("--sweep parsing", () => {
  it("reads ranges exactly in decimal, inclusive of the end", () => {
    expect(parseSweep("gamma=0.1..0.3:0.1")).toEqual({ name: "gamma", values: [0.1, 0.2, 0.3] });
    expect(parseSweep("lookback=10..25:5").values).toEqual([10, 15, 20, 25]);
    expect(parseSweep("x=1..2:0.4").values).toEqual([1, 1.4, 1.8]);
    expect(parseSweep("x=-1..1:1").values).toEqual([-1, 0, 1]);
    expect(parseSweep("size=0.5,1,2").values).toEqual([0.5, 1, 2]);
  });

  it("refuses bad specs with a readable UserError", () => {
    for (const [spec, msg] of [
      ["gamma", /expected name=a\.\.b:step/],
      ["=1..2:1", /expected name/],
      ["9x=1..2:1", /not a parameter name/],
      ["x=2..1:1", /below/],
      ["x=1..2:0", /step must be positive/],
      ["x=1..2:-1", /step must be positive/],
      ["x=a,b", /not a number/],
      ["x=1,1", /twice/],
      ["x=0..1000:0.001", /more than/],
    ] as const) {
      expect(() => parseSweep(spec), spec).toThrow(UserError);
      expect(() => parseSweep(spec), spec).toThrow(msg);
    }
  });

  it("a range has floor((b − a)/step) + 1 values, evenly spaced, from a to at most b", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -500, max: 500 }),
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 0, max: 3 }),
        (a, span, step, dp) => {
          const k = 10 ** dp;
          const [from, to, st] = [a / k, (a + span) / k, step / k];
          const { values } = parseSweep(`p=${from}..${to}:${st}`);
          expect(values).toHaveLength(Math.floor(span / step) + 1);
          expect(values[0]).toBe(from);
          values.forEach((v, i) => {
            // Exact on the decimal grid: a + i·step written with dp decimals.
            expect(v).toBe(Number(((a + i * step) / k).toFixed(dp)));
          });
          expect(values[values.length - 1]!).toBeLessThanOrEqual(to);
        },
      ),
    );
  });

  it("the grid is the product of the axes, first axis slowest, each point once", () => {
    fc.assert(
      fc.property(
        fc.array(fc.uniqueArray(fc.integer({ min: -50, max: 50 }), { minLength: 1, maxLength: 5 }), {
          minLength: 1,
          maxLength: 3,
        }),
        (lists) => {
          const axes = lists.map((values, i) => ({ name: `p${i}`, values }));
          const grid = expandGrid(axes);
          expect(grid).toHaveLength(lists.reduce((n, l) => n * l.length, 1));
          expect(new Set(grid.map((g) => JSON.stringify(g))).size).toBe(grid.length);
          const last = lists[lists.length - 1]!;
          // The last axis cycles fastest.
          expect(grid.slice(0, last.length).map((g) => g[`p${lists.length - 1}`])).toEqual(last);
          expect(grid[0]).toEqual(Object.fromEntries(lists.map((l, i) => [`p${i}`, l[0]])));
        },
      ),
    );
    expect(() =>
      expandGrid([
        { name: "a", values: [1] },
        { name: "a", values: [2] },
      ]),
    ).toThrow(/twice/);
    const big = Array.from({ length: 101 }, (_, i) => i);
    expect(() =>
      expandGrid([
        { name: "a", values: big },
        { name: "b", values: big },
      ]),
    ).toThrow(new RegExp(`more than ${MAX_GRID_POINTS}`));
  });
});

describe("ranking", () => {
  it("is best first, failed runs last, ties in grid order, and independent of finishing order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.integer({ min: -5, max: 5 }), { nil: undefined }), {
          minLength: 1,
          maxLength: 30,
        }),
        fc.boolean(),
        (scores, lower) => {
          const runs = scores.map((score, index) => ({ index, params: { i: index }, score }));
          const metric = lower ? "max_drawdown_pct" : "sharpe";
          const ranked = rankRuns(runs, metric);
          expect(rankRuns([...runs].reverse(), metric)).toEqual(ranked);
          for (let i = 1; i < ranked.length; i++) {
            const [p, q] = [ranked[i - 1]!, ranked[i]!];
            if (q.score === undefined) continue;
            expect(p.score).not.toBeUndefined();
            if (p.score === q.score) expect(p.index).toBeLessThan(q.index);
            else expect(lower ? p.score! < q.score : p.score! > q.score).toBe(true);
          }
        },
      ),
    );
  });
});

describe("walk-forward folds", () => {
  it("out-of-sample windows tile the end of the period, each right after its in-sample window", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e6 }),
        fc.integer({ min: 100, max: 100_000 }),
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 5 }),
        (startMin, minutes, folds, ratio) => {
          const from = startMin * 60_000 + 17;
          const to = from + minutes * 60_000;
          const fs = walkForwardFolds(from, to, folds, ratio);
          expect(fs).toHaveLength(folds);
          const len = fs[0]!.outTo - fs[0]!.outFrom;
          for (const [i, f] of fs.entries()) {
            expect(f.inTo).toBe(f.outFrom);
            expect(f.inFrom).toBeGreaterThanOrEqual(from);
            expect(f.outTo).toBeLessThanOrEqual(to);
            expect(f.outTo - f.outFrom).toBe(len);
            expect(f.inTo - f.inFrom).toBe(len * ratio);
            if (i > 0) expect(f.outFrom).toBe(fs[i - 1]!.outTo);
          }
          expect(to - fs[folds - 1]!.outTo).toBeLessThan(60_000);
        },
      ),
    );
    expect(() => walkForwardFolds(0, 3 * 60_000, 5)).toThrow(/too short/);
    expect(() => walkForwardFolds(0, 1e9, 0)).toThrow(/--folds/);
  });
});
