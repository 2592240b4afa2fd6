import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { findStrategy, STRATEGY_IDS, strategyCatalog } from "../../src/strategies/catalog.ts";
import { paramSchemas, strategyParamDocs, strategyParamsMarkdown } from "../../src/strategies/params-docs.ts";

const root = join(import.meta.dirname, "../..");

describe("strategy params documentation", () => {
  it("lists every strategy in catalog order with the catalog's defaults, and every param has a meaning", () => {
    const docs = strategyParamDocs();
    const catalog = strategyCatalog().strategies;
    expect(docs.map((d) => d.id)).toEqual(STRATEGY_IDS);
    for (const d of docs) {
      const entry = catalog[d.id]!;
      expect({ description: d.description, type: d.type }).toEqual({
        description: entry.description,
        type: entry.type,
      });
      expect(Object.fromEntries(d.params.map((p) => [p.name, p.default]))).toEqual(entry.params);
      expect(d.params.map((p) => p.name)).toEqual(Object.keys(paramSchemas(findStrategy(d.id)!)));
      for (const p of d.params)
        expect({ param: `${d.id}.${p.name}`, described: p.description.length > 10 }).toEqual({
          param: `${d.id}.${p.name}`,
          described: true,
        });
    }
    expect(docs.find((d) => d.id === "llm_agent")?.aliases).toEqual(["claude_agent"]);
  });

  it("docs/strategies.md shows exactly the generated sections, the alias included", () => {
    const page = readFileSync(join(root, "docs/strategies.md"), "utf8");
    const between = /<!-- strategy-params:start -->\n([\s\S]*?)\n<!-- strategy-params:end -->/.exec(
      page,
    )?.[1];
    const markdown = strategyParamsMarkdown();
    expect(between).toBe(markdown);
    for (const id of STRATEGY_IDS) expect(markdown).toContain(`### ${id}\n`);
    expect(markdown).toContain("`claude_agent`");
  });

  it("hl strategies --params simple_mm prints each param as `name = default  # meaning`", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(root, "bin/hl.mjs"), "strategies", "--params", "simple_mm"],
      { timeout: 60_000 },
    );
    const line = stdout.split("\n").find((l) => l.startsWith("spread_bps = "));
    expect(line).toMatch(/^spread_bps = 10 +# Full quoted spread, bps of mid/);
    expect(stdout).not.toContain("max_position");
  }, 60_000);

  it("docs/strategies.md shows every risk limit with its default and meaning, as the code has them", async () => {
    const { riskLimitsMarkdown, riskLimitsSchema } = await import("../../src/engine/risk.ts");
    for (const [k, v] of Object.entries(riskLimitsSchema.shape))
      expect({ k, described: (v.description ?? "").length > 10 }).toEqual({ k, described: true });
    const page = readFileSync(join(import.meta.dirname, "../../docs/strategies.md"), "utf8");
    const between = /<!-- risk-limits:start -->\n([\s\S]*?)\n<!-- risk-limits:end -->/.exec(page)?.[1];
    expect(between).toBe(riskLimitsMarkdown());
  });
});
