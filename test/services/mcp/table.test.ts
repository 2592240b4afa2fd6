import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TOOLS } from "../../../src/services/mcp/registry.ts";
import { firstSentence, toolTable } from "../../../src/services/mcp/table.ts";

const README = join(import.meta.dirname, "../../../docs/mcp.md");
const START = "<!-- tools:start -->";
const END = "<!-- tools:end -->";
const readme = existsSync(README) ? readFileSync(README, "utf8") : "";
const hasMarkers = readme.includes(START) && readme.includes(END);

describe("the tool table", () => {
  it("has one row per registered tool, with group, arguments, annotations and first sentence", () => {
    const lines = toolTable().split("\n");
    expect(lines).toHaveLength(2 + TOOLS.length);
    expect(lines[0]).toBe("| Tool | Group | Arguments | Annotations | Description |");
    expect(lines).toContain(
      '| `trade` | action | `instrument` (string, required), `side` ("buy" \\| "sell", required), `size` (number, required), `price` (number), `mock` (boolean, default false), `mainnet` (boolean, default false), `confirm` (boolean, default false) | destructive, open-world | Place ONE manual immediate-or-cancel order (no prompt) and return the fill or the exchange\'s refusal. |',
    );
    expect(lines.find((l) => l.startsWith("| `strategies` "))).toContain(
      "| information | none | read-only, idempotent |",
    );
  });

  it("cuts descriptions after their first sentence", () => {
    expect(firstSentence("One. Two.")).toBe("One.");
    expect(firstSentence('List them, or "None found.". More')).toBe('List them, or "None found.".');
    expect(firstSentence("No stop")).toBe("No stop");
  });

  it.skipIf(!hasMarkers)(
    `docs/mcp.md holds exactly toolTable() between ${START} and ${END} (skipped while docs/mcp.md has no such markers)`,
    () => {
      const inner = readme.slice(readme.indexOf(START) + START.length, readme.indexOf(END)).trim();
      expect(inner).toBe(toolTable());
    },
  );
});
