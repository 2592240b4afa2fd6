import { STRATEGY_IDS } from "../strategies/catalog.ts";

/** What `hl` offers an AI agent as a skill: its strategies and its MCP tools. */
interface SkillInventory {
  strategies: number;
  tools: number;
}

/**
 * The real counts, from the strategy catalog and the MCP tool registry (never a constant). The
 * registry is imported on demand: it pulls in every tool's trading code, so a successful count also
 * shows that those modules load.
 */
export async function skillInventory(): Promise<SkillInventory> {
  const { TOOLS } = await import("../services/mcp/registry.ts");
  return { strategies: STRATEGY_IDS.length, tools: TOOLS.length };
}
