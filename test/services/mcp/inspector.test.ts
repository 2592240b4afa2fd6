import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { TOOLS } from "../../../src/services/mcp/registry.ts";
import { HL, tempDirs } from "./helpers.ts";

/**
 * A real third-party client: the MCP Inspector's CLI mode (@modelcontextprotocol/inspector 0.15, the
 * last release without a Node ≥ 22 engine requirement) launches `hl mcp serve` over stdio.
 */

const exec = promisify(execFile);
const INSPECTOR = join(import.meta.dirname, "../../../node_modules/.bin/mcp-inspector");
const dirs = tempDirs("mcp-inspector");
afterAll(() => dirs.cleanup());

async function inspect(...method: string[]): Promise<unknown> {
  const env = [`DATA_DIR=${dirs.dataDir}`, `HL_AGENT_HOME=${dirs.home}`, "HL_NETWORK=paper"].flatMap((e) => [
    "-e",
    e,
  ]);
  const { stdout } = await exec(
    INSPECTOR,
    ["--cli", ...env, process.execPath, HL, "mcp", "serve", ...method],
    {
      timeout: 60_000,
    },
  );
  return JSON.parse(stdout);
}

describe.skipIf(!existsSync(INSPECTOR))(
  "MCP Inspector CLI against hl mcp serve (skipped: inspector not installed)",
  () => {
    it("lists the 18 tools and calls strategies", async () => {
      const [list, result] = await Promise.all([
        inspect("--method", "tools/list") as Promise<{ tools: { name: string; annotations?: object }[] }>,
        inspect("--method", "tools/call", "--tool-name", "strategies") as Promise<{
          structuredContent?: { strategies: object };
          isError?: boolean;
        }>,
      ]);
      expect(list.tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
      expect(list.tools.every((t) => t.annotations !== undefined)).toBe(true);
      expect(result.isError).toBeFalsy();
      expect(Object.keys(result.structuredContent?.strategies ?? {})).toHaveLength(14);
    });
  },
);
