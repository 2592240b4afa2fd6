import { aggressiveTaker } from "./aggressive_taker.ts";
import { avellanedaMm } from "./avellaneda_mm.ts";
import { basisArb } from "./basis_arb.ts";
import { engineMm } from "./engine_mm.ts";
import { fundingArb } from "./funding_arb.ts";
import { gridMm } from "./grid_mm.ts";
import { hedgeAgent } from "./hedge_agent.ts";
import { liquidationMm } from "./liquidation_mm.ts";
import { llmAgent } from "./llm_agent.ts";
import { meanReversion } from "./mean_reversion.ts";
import { momentumBreakout } from "./momentum_breakout.ts";
import { regimeMm } from "./regime_mm.ts";
import { rfqAgent } from "./rfq_agent.ts";
import type { AnyStrategy, StrategyType } from "./sdk.ts";
import { simpleMm } from "./simple_mm.ts";

/** The 14 strategies, in the contract's order. */
const DEFINITIONS = [
  simpleMm,
  avellanedaMm,
  engineMm,
  regimeMm,
  gridMm,
  liquidationMm,
  fundingArb,
  basisArb,
  momentumBreakout,
  meanReversion,
  aggressiveTaker,
  hedgeAgent,
  rfqAgent,
  llmAgent,
] as unknown as readonly AnyStrategy[];

export const STRATEGY_IDS = DEFINITIONS.map((d) => d.id) as readonly string[];

/** Other names accepted for a strategy id. */
export const STRATEGY_ALIASES: Readonly<Record<string, string>> = { claude_agent: "llm_agent" };

/** The YEX (Nunchi HIP-3) yield perpetuals: market name → description. */
const YEX_MARKETS: Readonly<Record<string, string>> = {
  "VXX-USDYP": "Volatility index (VXX) yield perpetual",
  "US3M-USDYP": "US 3-month Treasury rate yield perpetual",
  "BTCSWP-USDYP": "BTC interest rate swap yield perpetual — tracks the BTC-denominated swap curve",
};

interface CatalogEntry {
  description: string;
  type: StrategyType;
  params: Record<string, number>;
}

interface StrategyCatalog {
  strategies: Record<string, CatalogEntry>;
  markets: Record<string, string>;
}

/** Looks a strategy up by id or alias; undefined when unknown. */
export function findStrategy(name: string): AnyStrategy | undefined {
  const id = STRATEGY_ALIASES[name] ?? name;
  return DEFINITIONS.find((d) => d.id === id);
}

/** The params a strategy runs with when none are given: its schema's defaults. */
export function defaultParams(s: AnyStrategy): Record<string, number> {
  return s.params.parse({});
}

/** `GET /api/strategies` and the MCP `strategies` tool: generated from the strategy files themselves. */
export function strategyCatalog(): StrategyCatalog {
  const strategies: Record<string, CatalogEntry> = {};
  for (const d of DEFINITIONS) {
    strategies[d.id] = { description: d.description, type: d.type, params: defaultParams(d) };
  }
  return { strategies, markets: { ...YEX_MARKETS } };
}
