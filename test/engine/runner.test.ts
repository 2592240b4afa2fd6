import { describe, expect, it } from "vitest";
import { parsePairs } from "../../src/cli/run.ts";
import { resolveParams, resolveRiskLimits, resolveStrategy } from "../../src/engine/runner.ts";

describe("run configuration", () => {
  it("params: defaults, overrides, unknown names and bad values", () => {
    const s = resolveStrategy("simple_mm");
    expect(resolveParams(s)).toEqual({ spread_bps: 10, base_size: 1, max_inventory: 10 });
    expect(resolveParams(s, { spread_bps: 4 })).toMatchObject({ spread_bps: 4, base_size: 1 });
    expect(() => resolveParams(s, { nope: 1 })).toThrow(/simple_mm has no param nope/);
    expect(() => resolveParams(s, { spread_bps: -1 })).toThrow(/bad params for simple_mm/);
    expect(() => resolveStrategy("nope")).toThrow(/unknown strategy "nope" \(available: aggressive_taker, /);
    expect(resolveStrategy("claude_agent").id).toBe("llm_agent");
  });

  it("risk limits and name=value pairs", () => {
    expect(resolveRiskLimits({ max_order_size: 1 }).max_order_size).toBe(1);
    expect(() => resolveRiskLimits({ max_leverage: 3 })).toThrow(/unknown risk limit max_leverage/);
    expect(parsePairs(["a=1", "b_c=0.5"], "--param")).toEqual({ a: 1, b_c: 0.5 });
    expect(() => parsePairs(["a=x"], "--param")).toThrow(/name=number/);
  });
});
