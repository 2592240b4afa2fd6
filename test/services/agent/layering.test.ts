import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "../../../src");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** Every relative module a file imports, static or dynamic, resolved to a path under src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*)["'](\.[^"']+)["']/g)].map((m) => m[1]!);
  return specs.map((s) => relative(SRC, resolve(dirname(file), s)));
}

describe("layering", () => {
  it("nothing outside src/cli imports the CLI (the CLI wires the services, never the reverse)", () => {
    const offenders = sources(SRC)
      .filter((f) => !relative(SRC, f).startsWith("cli/"))
      .flatMap((f) =>
        importsOf(f)
          .filter((m) => m.startsWith("cli/"))
          .map((m) => `${relative(SRC, f)} → ${m}`),
      );
    expect(offenders).toEqual([]);
  });
});

/** Packages and src/ modules a file loads when it loads (type-only imports and dynamic imports aside). */
function loadsOf(file: string): { modules: string[]; packages: string[] } {
  const text = readFileSync(file, "utf8");
  const specs = [
    ...text.matchAll(/^(?:import|export)\s+(?!type\s)(?:[^;]*?\sfrom\s+)?["']([^"']+)["']/gm),
  ].map((m) => m[1]!);
  return {
    modules: specs.filter((s) => s.startsWith(".")).map((s) => resolve(dirname(file), s)),
    packages: specs.filter((s) => !s.startsWith(".") && !s.startsWith("node:")),
  };
}

describe("the agent service in WOLF mode", () => {
  it("loads neither a schema library nor SQLite to read and serve the WOLF state (memory at rest)", () => {
    // The service and the module it imports for a WOLF service (wiring.ts, agentMappers).
    const pending = ["services/agent/server.ts", "services/agent/wiring.ts", "wolf/predecessor.ts"].map((f) =>
      join(SRC, f),
    );
    const seen = new Set<string>();
    const packages = new Map<string, string>();
    while (pending.length > 0) {
      const file = pending.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      const { modules, packages: used } = loadsOf(file);
      for (const p of used) packages.set(p, relative(SRC, file));
      pending.push(...modules);
    }
    expect(seen.size).toBeGreaterThan(20);
    const heavy = [...packages].filter(([p]) => /^(zod|better-sqlite3)(\/|$)/.test(p));
    expect(heavy).toEqual([]);
  });
});

describe("skill install", () => {
  it("reports the catalog's strategies and the registry's tools without reaching into the CLI", async () => {
    const { skillInstall } = await import("../../../src/services/agent/wiring.ts");
    const { STRATEGY_IDS } = await import("../../../src/strategies/catalog.ts");
    const { TOOLS } = await import("../../../src/services/mcp/registry.ts");
    expect(await skillInstall()).toEqual({
      installed: true,
      strategies: STRATEGY_IDS.length,
      tools: TOOLS.length,
    });
    expect(STRATEGY_IDS.length).toBe(14);
    expect(TOOLS.length).toBe(18);
  });
});
