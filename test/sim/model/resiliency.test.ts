import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { holeAfter, remainingShare } from "../../../src/sim/model/resiliency.ts";

const H = 20_000;

describe("book resiliency: a hole refills with a half-life", () => {
  it("half of a hole is left after one half-life, a quarter after two, all of it at once", () => {
    expect(remainingShare(H, H)).toBeCloseTo(0.5, 12);
    expect(remainingShare(2 * H, H)).toBeCloseTo(0.25, 12);
    expect(remainingShare(0, H)).toBe(1);
    const hole = (dt: number) => holeAfter({ target: 10, hole: 8, before: 2, now: 2 }, dt, H);
    expect(hole(H)).toBeCloseTo(4, 12);
    expect(hole(3 * H)).toBeCloseTo(1, 12);
  });

  it("counts what trades took since the last look in full, on top of the decayed hole", () => {
    // 4 missing, then 3 more taken: after one half-life 2 of the old hole is left, plus the new 3.
    expect(holeAfter({ target: 10, hole: 4, before: 6, now: 3 }, H, H)).toBeCloseTo(5, 12);
  });

  it("refilling in many small looks or one long one ends at the same hole", () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 1, max: 50 }), (share, n) => {
        const target = 100;
        let hole = target * share;
        for (let k = 0; k < n; k++) hole = holeAfter({ target, hole, before: 1, now: 1 }, 60_000 / n, H);
        const once = holeAfter({ target, hole: target * share, before: 1, now: 1 }, 60_000, H);
        expect(hole).toBeCloseTo(once, 9);
      }),
    );
  });

  it("a hole never exceeds the level nor goes negative, and only shrinks while nothing trades", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        fc.integer({ min: 0, max: 600_000 }),
        (target, share, before, now, dt) => {
          const hole = target * share;
          const next = holeAfter({ target, hole, before, now }, dt, H);
          expect(next).toBeGreaterThanOrEqual(0);
          expect(next).toBeLessThanOrEqual(target);
          if (now >= before) expect(next).toBeLessThanOrEqual(hole + 1e-9);
        },
      ),
    );
  });
});
