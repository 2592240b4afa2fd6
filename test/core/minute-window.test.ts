import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MinuteWindow } from "../../src/core/minute-window.ts";

interface Added {
  atMs: number;
  n: number;
}

/** The sum of what was added in the `seconds` whole seconds ending at `nowMs`'s second. */
function bruteTotal(events: Added[], nowMs: number, seconds: number): number {
  const now = Math.floor(nowMs / 1000);
  return events
    .filter((e) => {
      const s = Math.floor(e.atMs / 1000);
      return s <= now && now - s < seconds;
    })
    .reduce((sum, e) => sum + e.n, 0);
}

/** Events at non-decreasing times (as the clock moves), gaps up to 3 minutes, integer amounts. */
const events = fc
  .array(fc.record({ gapMs: fc.integer({ min: 0, max: 180_000 }), n: fc.integer({ min: 0, max: 500 }) }), {
    maxLength: 120,
  })
  .chain((steps) =>
    fc.integer({ min: 0, max: 2e12 }).map((startMs) => {
      let at = startMs;
      return steps.map(({ gapMs, n }) => {
        at += gapMs;
        return { atMs: at, n };
      });
    }),
  );

describe("MinuteWindow", () => {
  it("counts what was added in the current second and the 59 before it", () => {
    const w = new MinuteWindow();
    w.add(5, 10_999);
    w.add(7, 11_000);
    expect(w.total(11_500)).toBe(12);
    expect(w.total(69_999)).toBe(12); // second 69: 10 is its 60th second back
    expect(w.total(70_000)).toBe(7); // second 70: second 10 has left
    expect(w.total(71_000)).toBe(0);
    expect(w.idle(71_000)).toBe(true);
  });

  it("reuses a slot a minute later: what it held from the older second is gone", () => {
    const w = new MinuteWindow();
    w.add(3, 0);
    w.add(4, 60_000); // the same slot
    expect(w.total(60_000)).toBe(4);
  });

  it("an add of 0 marks it used (not idle) for a minute, without raising the total", () => {
    const w = new MinuteWindow();
    w.add(0, 5_000);
    expect(w.total(5_000)).toBe(0);
    expect(w.idle(64_999)).toBe(false);
    expect(w.idle(65_000)).toBe(true);
  });

  it("says how many seconds until room for an amount: as each second's slot leaves, never before", () => {
    const w = new MinuteWindow();
    w.add(40, 0);
    w.add(60, 10_000);
    const roomFor = (n: number) => (left: number) => left + n <= 100;
    expect(w.secondsUntil(roomFor(0), 10_000)).toBe(0);
    expect(w.secondsUntil(roomFor(30), 10_000)).toBe(50); // the 40 of second 0 leave at 60
    expect(w.secondsUntil(roomFor(50), 10_000)).toBe(60); // the 60 of second 10 leave at 70
    expect(w.secondsUntil(() => false, 10_000)).toBe(60); // only an empty window: its width
  });

  it("a wider window (61 s) keeps a second longer", () => {
    const w = new MinuteWindow(61);
    w.add(1, 0);
    expect(w.total(60_000)).toBe(1);
    expect(w.total(61_000)).toBe(0);
    expect(() => new MinuteWindow(0)).toThrow(RangeError);
  });

  it("total is the sum of what was added in the last 60 s, for any sequence of adds (60 and 61 s wide)", () => {
    fc.assert(
      fc.property(
        events,
        fc.integer({ min: 0, max: 120_000 }),
        fc.constantFrom(60, 61),
        (adds, afterMs, width) => {
          const w = new MinuteWindow(width);
          for (const [k, e] of adds.entries()) {
            w.add(e.n, e.atMs);
            // The total after each add, and a while after the last one.
            expect(w.total(e.atMs)).toBe(bruteTotal(adds.slice(0, k + 1), e.atMs, width));
          }
          const end = (adds.at(-1)?.atMs ?? 0) + afterMs;
          expect(w.total(end)).toBe(bruteTotal(adds, end, width));
          expect(w.idle(end)).toBe(
            !adds.some((e) => Math.floor(end / 1000) - Math.floor(e.atMs / 1000) < width),
          );
        },
      ),
      { numRuns: 200 },
    );
  });

  it("secondsUntil is the first whole second after which the brute-force total fits", () => {
    fc.assert(
      fc.property(events, fc.integer({ min: 0, max: 3000 }), (adds, limit) => {
        const w = new MinuteWindow();
        for (const e of adds) w.add(e.n, e.atMs);
        const now = adds.at(-1)?.atMs ?? 0;
        const fits = (left: number) => left <= limit;
        const second = Math.floor(now / 1000);
        let expected = 60;
        for (let k = 0; k < 60; k++)
          if (fits(bruteTotal(adds, (second + k) * 1000, 60))) {
            expected = k;
            break;
          }
        expect(w.secondsUntil(fits, now)).toBe(expected);
      }),
      { numRuns: 200 },
    );
  });
});
