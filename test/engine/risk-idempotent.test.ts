import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dec } from "../../src/core/decimal.ts";
import { DEFAULT_RISK_LIMITS, evaluateRisk, initialRiskState } from "../../src/engine/risk.ts";

/**
 * The engine reuses the last risk evaluation while flat with no new fill on the same UTC day (a
 * backtest ticks hundreds of thousands of times). That is only sound because evaluating the same
 * flat inputs again gives the same state and mode: this property checks it.
 */
describe("risk evaluation of unchanged flat inputs", () => {
  it("is idempotent: the second evaluation gives the first one's state and mode", () => {
    const DAY = 86_400_000;
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -5_000_00, max: 5_000_00 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 0, max: 3 * DAY - 1 }),
        fc.integer({ min: 0, max: DAY / 2 }),
        fc.double({ min: 1, max: 10_000, noNaN: true }),
        (pnlCents, t0, later, mark) => {
          let state = initialRiskState();
          let nowMs = Date.UTC(2026, 0, 1) + t0;
          // Some history first (a position, PnL moving), then a flat tick repeated later the same day.
          for (const c of pnlCents) {
            state = evaluateRisk(DEFAULT_RISK_LIMITS, state, {
              pnl: dec(c).div(100),
              positionQty: dec(1),
              mark: dec(mark),
              nowMs,
            }).state;
            nowMs += 1000;
          }
          const flat = { pnl: dec(pnlCents.at(-1)!).div(100), positionQty: dec(0), mark: dec(mark), nowMs };
          const first = evaluateRisk(DEFAULT_RISK_LIMITS, state, flat);
          const sameDay = Math.min(nowMs + later, Math.floor(nowMs / DAY) * DAY + DAY - 1);
          const again = evaluateRisk(DEFAULT_RISK_LIMITS, first.state, {
            ...flat,
            mark: dec(mark * 1.5),
            nowMs: sameDay,
          });
          expect(again).toEqual(first);
        },
      ),
    );
  });
});
