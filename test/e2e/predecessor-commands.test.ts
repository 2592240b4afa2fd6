import { execFile, spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

/** Commands a predecessor user types: `hl status --watch`, `hl skills list`, `hl setup bootstrap`. */

const HL = join(import.meta.dirname, "../../bin/hl.mjs");
const run = promisify(execFile);
const root = mkdtempSync(join(tmpdir(), "predecessor-cmds-"));
const env = { ...process.env, HL_PRIVATE_KEY: "", HL_NETWORK: "paper", DATA_DIR: join(root, "data") };

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("predecessor commands", () => {
  it("hl status --watch refreshes until stopped", { timeout: 30_000 }, async () => {
    const dir = join(root, "watched");
    cpSync(join(import.meta.dirname, "../fixtures/predecessor-data"), dir, { recursive: true });
    const child = spawn(process.execPath, [HL, "status", "--watch", "--interval", "0.2", "--data-dir", dir], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout!.on("data", (d) => (out += d));
    const exited = new Promise<number | null>((r) => child.once("exit", r));
    const deadline = Date.now() + 20_000;
    while ((out.match(/=== hl-agent strategy engine ===/g) ?? []).length < 3 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect((out.match(/=== hl-agent strategy engine ===/g) ?? []).length).toBeGreaterThanOrEqual(3);
    expect(out).toContain("Strategy: engine_mm | Instrument: ETH-PERP");
    const bad = await run(process.execPath, [HL, "status", "--watch", "--interval", "0"], { env }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect((bad as { code: number }).code).toBe(1);
  });

  it("hl skills list names each skill and its commands", async () => {
    const { stdout } = await run(process.execPath, [HL, "skills", "list"], { env });
    for (const name of ["wolf", "dsl", "scanner", "movers", "howl", "onboard"])
      expect(stdout).toMatch(new RegExp(`^${name}\\s`, "m"));
    expect(stdout).toContain("hl wolf run");
    expect(stdout.trim().split("\n").at(-1)).toBe("6 skill(s) found.");
    const json = JSON.parse((await run(process.execPath, [HL, "skills", "list", "--json"], { env })).stdout);
    expect(json).toHaveLength(6);
  });

  it("hl setup bootstrap checks Node, creates the data directory and runs the check", {
    timeout: 30_000,
  }, async () => {
    const dir = join(root, "boot");
    const { stdout } = await run(process.execPath, [HL, "setup", "bootstrap", "--data-dir", dir], { env });
    expect(stdout).toContain(`OK  Node.js ${process.versions.node}`);
    expect(stdout).toMatch(/Bootstrap complete\. Next: /);
    for (const sub of ["wolf", "cli", "journal", "memory", "logs"])
      expect(existsSync(join(dir, sub))).toBe(true);
  });
});
