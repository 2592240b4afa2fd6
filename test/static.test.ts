import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

/**
 * Tests and development run the sources through tsx, which strips types without checking them: a type error would reach
 * users silently. The same goes for lint findings. Both are part of the test suite.
 */
const run = promisify(execFile);
const root = join(import.meta.dirname, "..");

/**
 * The compiler's incremental state, so a run after a small change rechecks only what the change can
 * affect (it still reports every error, the unchanged files' ones from the state). One file per checkout:
 * node_modules may be shared by several. A missing or unreadable file means a full check.
 */
const tsBuildInfo = join(
  root,
  "node_modules/.cache/hl-agent",
  `tsc-${createHash("sha256").update(root).digest("hex").slice(0, 16)}.tsbuildinfo`,
);

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

// Concurrent: tsc checks on one core while biome lints on the other.
describe.concurrent("static checks", () => {
  it("the TypeScript compiler finds no error (src, test, bench, scripts)", { timeout: 150_000 }, async () => {
    const r = await check("tsc", [
      "-p",
      "tsconfig.json",
      "--noEmit",
      "--incremental",
      "--tsBuildInfoFile",
      tsBuildInfo,
    ]);
    expect(r.output.trim(), r.output).toBe("");
    expect(r.code).toBe(0);
  });

  it("no tracked file keeps a merge conflict's markers (biome reads no Markdown)", async () => {
    const found = await run("git", ["grep", "-nE", "^(<{7} |>{7} |={7}$)"], { cwd: root }).then(
      (r) => r.stdout,
      (err: { code?: number; stdout?: string }) => (err.code === 1 ? "" : `git grep failed: ${String(err)}`),
    );
    expect(found).toBe("");
  });

  it("biome finds nothing to fix", { timeout: 60_000 }, async () => {
    const r = await check("biome", ["check", "--error-on-warnings", "src", "test", "bench", "scripts"]);
    expect(r.code, r.output).toBe(0);
  });
});
