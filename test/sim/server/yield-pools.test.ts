import { describe, expect, it } from "vitest";
import { yieldPools } from "../../../src/sim/rates/yield-pools.ts";

const T0 = Date.UTC(2026, 10, 1);
const HOUR = 3_600_000;

describe("yields API stand-in", () => {
  it("serves the four reference pools in the public API's shape", () => {
    const r = yieldPools(1, T0);
    expect(r.status).toBe("success");
    const keys = r.data.map((p) => `${p.project}/${p.symbol}/${p.chain}`);
    expect(keys).toEqual([
      "aave-v3/USDC/Ethereum",
      "compound-v3/USDC/Ethereum",
      "ethena-usde/SUSDE/Ethereum",
      "lido/STETH/Ethereum",
    ]);
    for (const p of r.data) {
      expect(typeof p.pool).toBe("string");
      expect(p.tvlUsd).toBeGreaterThan(1e8);
      expect(p.apy).toBeCloseTo(p.apyBase + (p.apyReward ?? 0), 3);
    }
  });

  it("stays at realistic levels and moves slowly over a month", () => {
    const bySymbol = (r: ReturnType<typeof yieldPools>, project: string) =>
      r.data.find((p) => p.project === project)!.apy;
    let prev = yieldPools(9, T0);
    for (let h = 1; h < 24 * 30; h++) {
      const r = yieldPools(9, T0 + h * HOUR);
      for (const [project, lo, hi] of [
        ["aave-v3", 2, 6],
        ["compound-v3", 2, 6],
        ["ethena-usde", 4, 15],
        ["lido", 2.4, 3.6],
      ] as const) {
        const apy = bySymbol(r, project);
        expect(apy).toBeGreaterThanOrEqual(lo);
        expect(apy).toBeLessThanOrEqual(hi);
        expect(Math.abs(apy - bySymbol(prev, project))).toBeLessThan(0.5);
      }
      prev = r;
    }
    expect(bySymbol(yieldPools(9, T0), "aave-v3")).not.toBe(
      bySymbol(yieldPools(9, T0 + 10 * 24 * HOUR), "aave-v3"),
    );
  });

  it("is a pure function of seed and time", () => {
    expect(yieldPools(3, T0 + 5 * HOUR)).toEqual(yieldPools(3, T0 + 5 * HOUR));
    expect(yieldPools(3, T0)).not.toEqual(yieldPools(4, T0));
  });
});
