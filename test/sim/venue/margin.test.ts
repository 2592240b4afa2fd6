import { describe, expect, it } from "vitest";
import { maintenanceMargin } from "../../../src/sim/venue/margin.ts";
import { DEFAULT_MARKETS } from "../../../src/sim/venue/markets.ts";

const MICRO = 1_000_000;
const spec = (name: string) => DEFAULT_MARKETS.find((m) => m.name === name)!;

describe("maintenance margin by margin tier", () => {
  it("is half the initial margin at the tier's max leverage, less the tier's deduction (continuous)", () => {
    const vxx = spec("yex:VXX"); // 20x from $0, 5x from $500k, 2x from $5M
    expect(maintenanceMargin(vxx, 100_000 * MICRO)).toBe(2_500 * MICRO);
    expect(maintenanceMargin(vxx, 500_000 * MICRO)).toBe(12_500 * MICRO);
    // $1M: 10 % − 500k × (10 % − 2.5 %) = 100,000 − 37,500.
    expect(maintenanceMargin(vxx, 1_000_000 * MICRO)).toBe(62_500 * MICRO);
    // $6M: 25 % − (37,500 + 5M × (25 % − 10 %)) = 1,500,000 − 787,500.
    expect(maintenanceMargin(vxx, 6_000_000 * MICRO)).toBe(712_500 * MICRO);
    const arb = spec("ARB"); // table 51: 10x to $3M, then 5x
    expect(maintenanceMargin(arb, 3_000_000 * MICRO)).toBe(150_000 * MICRO);
    expect(maintenanceMargin(arb, 4_000_000 * MICRO)).toBe(250_000 * MICRO);
    const tao = spec("TAO"); // one flat tier at 5x
    expect(maintenanceMargin(tao, 1_000_000 * MICRO)).toBe(100_000 * MICRO);
  });
});
