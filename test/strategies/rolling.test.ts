import { describe, expect, it } from "vitest";
import {
  emptyRolling,
  type Rolling,
  rollingLength,
  rollingMax,
  rollingMean,
  rollingMin,
  rollingPush,
} from "../../src/strategies/rolling.ts";
import { mean, pushWindow } from "../../src/strategies/util.ts";

const values = (w: Rolling) => w.buf.slice(w.start, w.end);

describe("rolling window", () => {
  it("holds what a copied window holds, through compactions, with the same mean to the bit", () => {
    let w = emptyRolling();
    let copy: number[] = [];
    for (let i = 0; i < 500; i++) {
      const x = 3000 + Math.sin(i) * 17.3 + i * 0.01;
      w = rollingPush(w, x, 20);
      copy = pushWindow(copy, x, 20);
      expect(values(w)).toEqual(copy);
      expect(rollingLength(w)).toBe(copy.length);
      expect(rollingMean(w)).toBe(mean(copy));
      expect(rollingMax(w)).toBe(Math.max(...copy));
      expect(rollingMin(w)).toBe(Math.min(...copy));
    }
    expect(w.buf.length).toBeLessThanOrEqual(4 * 20 + 16);
  });

  it("a window already held never changes, whichever window is appended to next", () => {
    const a = rollingPush(rollingPush(emptyRolling(), 1, 3), 2, 3);
    const b = rollingPush(a, 3, 3);
    const c = rollingPush(a, 30, 3); // a again: b owns the tail now, so c copies
    const d = rollingPush(b, 4, 3);
    expect(values(a)).toEqual([1, 2]);
    expect(values(b)).toEqual([1, 2, 3]);
    expect(values(c)).toEqual([1, 2, 30]);
    expect(values(d)).toEqual([2, 3, 4]);
    // Two empty windows do not share a buffer.
    const e = rollingPush(emptyRolling(), 7, 3);
    expect(values(rollingPush(emptyRolling(), 8, 3))).toEqual([8]);
    expect(values(e)).toEqual([7]);
    expect(rollingMean(emptyRolling())).toBe(0);
    expect(rollingMax(emptyRolling())).toBe(Number.NEGATIVE_INFINITY);
  });
});
