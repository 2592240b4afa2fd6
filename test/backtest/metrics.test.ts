import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  dailyReturns,
  exposure,
  maxDrawdown,
  sharpe,
  sortino,
  stdev,
  tradeStats,
} from "../../src/backtest/metrics.ts";

const DAY = 86_400_000;
const equityArb = fc.array(fc.double({ min: 1, max: 1e6, noNaN: true }), { minLength: 1, maxLength: 200 });

describe("backtest figures", () => {
  it("max drawdown is never negative, never more than the peak, and 0 for a rising curve", () => {
    fc.assert(
      fc.property(equityArb, (eq) => {
        const times = eq.map((_, i) => i * 60_000);
        const dd = maxDrawdown(eq, times);
        expect(dd.maxUsd).toBeGreaterThanOrEqual(0);
        expect(dd.maxFraction).toBeGreaterThanOrEqual(0);
        expect(dd.maxFraction).toBeLessThanOrEqual(1);
        expect(dd.durationMs).toBeGreaterThanOrEqual(0);
        const rising = [...eq].sort((a, b) => a - b);
        expect(maxDrawdown(rising, times).maxUsd).toBe(0);
      }),
    );
  });

  it("max drawdown equals the largest peak-to-later-trough fall (brute force)", () => {
    fc.assert(
      fc.property(equityArb, (eq) => {
        let worst = 0;
        for (let i = 0; i < eq.length; i++)
          for (let j = i + 1; j < eq.length; j++) worst = Math.max(worst, eq[i]! - eq[j]!);
        expect(
          maxDrawdown(
            eq,
            eq.map((_, i) => i),
          ).maxUsd,
        ).toBeCloseTo(worst, 6);
      }),
    );
  });

  it("drawdown duration runs from the peak to the recovery, or to the end without one", () => {
    const t = [0, 1, 2, 3, 4, 5].map((i) => i * 1000);
    const recovered = maxDrawdown([100, 120, 90, 100, 121, 110], t);
    expect(recovered).toMatchObject({ maxUsd: 30, peakMs: 1000, troughMs: 2000, recoveredMs: 4000 });
    expect(recovered.durationMs).toBe(3000);
    expect(recovered.maxFraction).toBeCloseTo(0.25, 12);
    const never = maxDrawdown([100, 120, 90, 100, 110, 119], t);
    expect(never.recoveredMs).toBeNull();
    expect(never.durationMs).toBe(4000);
  });

  it("Sharpe and Sortino of a constant series are undefined (null), not infinite", () => {
    fc.assert(
      fc.property(
        fc.double({ min: -0.1, max: 0.1, noNaN: true }),
        fc.integer({ min: 2, max: 50 }),
        (r, n) => {
          const xs = Array<number>(n).fill(r);
          expect(sharpe(xs)).toBeNull();
          if (r >= 0) expect(sortino(xs)).toBeNull();
        },
      ),
    );
    expect(sharpe([0.01])).toBeNull();
  });

  it("Sharpe is mean over sample deviation, annualised with √365, and scale-free", () => {
    const xs = [0.01, -0.02, 0.03, 0.0];
    const m = 0.005;
    const sd = Math.sqrt(((0.005 ** 2 + 0.025 ** 2 + 0.025 ** 2 + 0.005 ** 2) as number) / 3);
    expect(stdev(xs)).toBeCloseTo(sd, 12);
    expect(sharpe(xs)).toBeCloseTo((m / sd) * Math.sqrt(365), 9);
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -0.2, max: 0.2, noNaN: true }), { minLength: 3, maxLength: 60 }),
        fc.double({ min: 0.1, max: 10, noNaN: true }),
        (rs, k) => {
          const a = sharpe(rs);
          const b = sharpe(rs.map((r) => r * k));
          if (a === null || b === null) return;
          expect(b).toBeCloseTo(a, 6);
        },
      ),
    );
  });

  it("Sortino uses the downside deviation over all periods", () => {
    const xs = [0.02, -0.01, 0.03, -0.02];
    const dd = Math.sqrt((0.01 ** 2 + 0.02 ** 2) / 4);
    expect(sortino(xs)).toBeCloseTo((0.005 / dd) * Math.sqrt(365), 9);
  });

  it("profit factor is gross profit over gross loss; win rate counts winners over closed trades", () => {
    const s = tradeStats(["10", "-4", "6", "-1", "0"]);
    expect(s.profitFactor).toBeCloseTo(16 / 5, 12);
    expect(s.winRate).toBeCloseTo(2 / 5, 12);
    expect(tradeStats(["3"]).profitFactor).toBeNull();
    expect(tradeStats([]).winRate).toBeNull();
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1000, max: 1000 }), { maxLength: 40 }), (xs) => {
        const st = tradeStats(xs.map(String));
        const win = xs.filter((x) => x > 0).reduce((a, b) => a + b, 0);
        const loss = -xs.filter((x) => x < 0).reduce((a, b) => a + b, 0);
        if (loss === 0) expect(st.profitFactor).toBeNull();
        else expect(st.profitFactor).toBeCloseTo(win / loss, 9);
        if (st.winRate !== null) expect(st.winRate).toBeGreaterThanOrEqual(0);
        if (st.winRate !== null) expect(st.winRate).toBeLessThanOrEqual(1);
      }),
    );
  });

  it("daily returns chain the last sample of each UTC day back to the starting capital", () => {
    const times = [0, DAY - 1, DAY, DAY + 5, 2 * DAY + 1];
    const eq = [101, 110, 105, 99, 120];
    const r = dailyReturns(100, eq, times);
    expect(r).toHaveLength(3);
    expect(r[0]).toBeCloseTo(0.1, 12);
    expect(r[1]).toBeCloseTo(99 / 110 - 1, 12);
    expect(r[2]).toBeCloseTo(120 / 99 - 1, 12);
    // Compounding the daily returns gives back the final equity.
    fc.assert(
      fc.property(equityArb, (eq2) => {
        const ts = eq2.map((_, i) => i * (DAY / 3));
        const rs = dailyReturns(1000, eq2, ts);
        const back = rs.reduce((acc, x) => acc * (1 + x), 1000);
        expect(back / eq2.at(-1)!).toBeCloseTo(1, 6);
      }),
    );
  });

  it("exposure is the share of samples with a position", () => {
    expect(exposure([0, 1, -2, 0])).toBe(0.5);
    expect(exposure([])).toBe(0);
  });
});
