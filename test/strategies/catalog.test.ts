import { describe, expect, it } from "vitest";
import { findStrategy, STRATEGY_IDS, strategyCatalog } from "../../src/strategies/catalog.ts";

describe("strategy catalog", () => {
  it("lists the contract's 14 ids in order, with the three YEX markets", () => {
    expect(STRATEGY_IDS).toEqual([
      "simple_mm",
      "avellaneda_mm",
      "engine_mm",
      "regime_mm",
      "grid_mm",
      "liquidation_mm",
      "funding_arb",
      "basis_arb",
      "momentum_breakout",
      "mean_reversion",
      "aggressive_taker",
      "hedge_agent",
      "rfq_agent",
      "llm_agent",
    ]);
    const c = strategyCatalog();
    expect(Object.keys(c.strategies)).toEqual(STRATEGY_IDS);
    expect(Object.keys(c.markets)).toEqual(["VXX-USDYP", "US3M-USDYP", "BTCSWP-USDYP"]);
    expect(c.markets["BTCSWP-USDYP"]).toBe(
      "BTC interest rate swap yield perpetual — tracks the BTC-denominated swap curve",
    );
  });

  it("every entry has a description, a known type and numeric params equal to the real defaults", () => {
    const c = strategyCatalog();
    for (const [id, e] of Object.entries(c.strategies)) {
      expect(e.description.length).toBeGreaterThan(5);
      expect(["mm", "arb", "signal", "taker", "risk", "rfq", "llm"]).toContain(e.type);
      for (const v of Object.values(e.params)) expect(typeof v).toBe("number");
      // the params a run uses without overrides are exactly the catalog's
      const s = findStrategy(id)!;
      expect(s.params.parse({})).toEqual(e.params);
    }
    expect(c.strategies.simple_mm!.params).toMatchObject({ spread_bps: 10, base_size: 1 });
    expect(c.strategies.avellaneda_mm!.params).toMatchObject({
      gamma: 0.1,
      k: 1.5,
      base_size: 1,
      max_inventory: 10,
    });
    // the predecessor advertised a hedge param that did not exist
    expect(c.strategies.hedge_agent!.params).toHaveProperty("notional_threshold");
    expect(c.strategies.llm_agent!.type).toBe("llm");
  });

  it("claude_agent is an alias of llm_agent", () => {
    expect(findStrategy("claude_agent")?.id).toBe("llm_agent");
    expect(findStrategy("nope")).toBeUndefined();
  });
});
