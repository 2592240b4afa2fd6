import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runHl } from "../support/hl-process.ts";

/** Reading a predecessor's data must leave every byte of it as it was (the user's files, maybe a backup). */
const FIXTURE = join(import.meta.dirname, "../fixtures/predecessor-data");
const roots: string[] = [];
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

/** Path → sha256 of every file under dir (a file added, removed or changed shows). */
function hashes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    out[path.slice(dir.length)] = createHash("sha256").update(readFileSync(path)).digest("hex");
  }
  return out;
}

describe("read-only commands on a predecessor's data", () => {
  it("hl status, journal, wolf status and howl change no file, and status says what it knows", async () => {
    const root = mkdtempSync(join(tmpdir(), "hl-readonly-"));
    roots.push(root);
    const data = join(root, "data");
    cpSync(FIXTURE, data, { recursive: true });
    const before = hashes(data);
    const env = { ...process.env, DATA_DIR: "", HL_AGENT_HOME: join(root, "home") };
    const commands = [
      ["status", "--data-dir", data],
      ["journal", "view", "--data-dir", data],
      ["wolf", "status", "--data-dir", data],
      ["howl", "report", "--data-dir", data],
    ];
    const results = await Promise.all(commands.map((args) => runHl(args, env)));
    for (const [i, r] of results.entries())
      expect(r.stderr, commands[i]!.join(" ")).not.toMatch(/^error: .*(readonly|read-only)/m);
    expect(hashes(data)).toEqual(before);
    // The predecessor's header: rollback journal (bytes 18-19 are 1), never switched to WAL by a reader.
    const header = readFileSync(join(data, "cli", "state.db")).subarray(18, 20);
    expect([...header]).toEqual([1, 1]);
    const status = results[0]!.stdout;
    expect(status).toContain("Strategy: engine_mm | Instrument: ETH-PERP");
    expect(status).not.toContain("?");
  }, 60_000);
});
