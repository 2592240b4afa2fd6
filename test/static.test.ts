import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

/**
 * Tests and development run the sources through tsx, which strips types without checking them: a type error would reach
 * users silently. The same goes for lint findings. Both are part of the test suite.
 */
const run = promisify(execFile);
const root = join(import.meta.dirname, "..");

async function check(bin: string, args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(join(root, "node_modules/.bin", bin), args, {
      cwd: root,
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, output: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

describe("static checks", () => {
  it("the TypeScript compiler finds no error (src, test, bench, scripts)", { timeout: 150_000 }, async () => {
    const r = await check("tsc", ["-p", "tsconfig.json", "--noEmit"]);
    expect(r.output.trim(), r.output).toBe("");
    expect(r.code).toBe(0);
  });

  it("biome finds nothing to fix", { timeout: 60_000 }, async () => {
    const r = await check("biome", ["check", "--error-on-warnings", "src", "test", "bench", "scripts"]);
    expect(r.code, r.output).toBe(0);
  });
});
