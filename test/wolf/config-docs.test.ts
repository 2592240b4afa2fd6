import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { buildWolfConfig, wolfConfigSchema } from "../../src/wolf/config.ts";
import { wolfConfigDocs, wolfConfigTable } from "../../src/wolf/config-docs.ts";

const root = join(import.meta.dirname, "../..");

describe("WOLF config documentation", () => {
  it("every key has a meaning, and docs/wolf-config.md shows exactly the generated table", () => {
    const docs = wolfConfigDocs();
    expect(docs.map((d) => d.key)).toEqual(Object.keys(wolfConfigSchema.shape));
    for (const d of docs)
      expect({ key: d.key, described: d.description.length > 10 }).toEqual({ key: d.key, described: true });
    const page = readFileSync(join(root, "docs/wolf-config.md"), "utf8");
    const between = /<!-- wolf-config:start -->\n([\s\S]*?)\n<!-- wolf-config:end -->/.exec(page)?.[1];
    expect(between).toBe(wolfConfigTable());
  });

  it("a misspelt key is refused by name instead of leaving the setting at its default", () => {
    expect(() => buildWolfConfig("default", {}, { max_slot: 2 } as never)).toThrow(
      "unknown WOLF config key: max_slot",
    );
    expect(() => buildWolfConfig("default", {}, { max_slots: 0 })).toThrow(
      /invalid WOLF config at max_slots/,
    );
  });

  it("hl wolf config --json prints the effective config, which --config accepts back", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(root, "bin/hl.mjs"), "wolf", "config", "--preset", "aggressive", "--json"],
      { env: { ...process.env, WOLF_CONFIG: "" }, timeout: 60_000 },
    );
    const printed = JSON.parse(stdout) as Record<string, unknown>;
    expect(printed).toEqual(buildWolfConfig("aggressive"));
    expect(buildWolfConfig("default", {}, printed)).toEqual(buildWolfConfig("aggressive"));
  }, 60_000);
});
