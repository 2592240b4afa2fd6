import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const HL = join(import.meta.dirname, "../../bin/hl.mjs");
const FIXTURE = join(import.meta.dirname, "../fixtures/predecessor-data");
const run = promisify(execFile);

describe("hl wolf status on an unconverted predecessor DATA_DIR", () => {
  it("shows the status (text and --json) and leaves the file as it was", { timeout: 20_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "wolf-status-predecessor-"));
    cpSync(FIXTURE, dir, { recursive: true });
    const env = { ...process.env, DATA_DIR: dir };
    const text = await run(process.execPath, [HL, "wolf", "status"], { env });
    expect(text.stdout).toMatch(/^WOLF Orchestrator/);
    expect(text.stdout).toMatch(/Tick: 1437 /);
    expect(text.stdout).toMatch(/Slot 0: BTC-PERP LONG 0\.0342 @ 97412/);
    expect(text.stdout).toMatch(/Slot 1: ETH-PERP SHORT 0\.957 @ 3481\.6/);
    const json = await run(process.execPath, [HL, "wolf", "status", "--json", "--data-dir", dir]);
    const status = JSON.parse(json.stdout) as { engine: string; tick_count: number; active_slots: unknown[] };
    expect(status).toMatchObject({ engine: "wolf", tick_count: 1437 });
    expect(status.active_slots.length).toBeGreaterThanOrEqual(2);
    // Reading is not migrating: the first run does that (keeping the original beside).
    expect(readFileSync(join(dir, "wolf", "state.json"))).toEqual(
      readFileSync(join(FIXTURE, "wolf", "state.json")),
    );
  });
});
