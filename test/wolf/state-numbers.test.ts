import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildWolfConfig, WOLF_PRESET_NAMES } from "../../src/wolf/config.ts";
import { freshState, loadWolfState, saveWolfState, statePath } from "../../src/wolf/state.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("wolf/state.json daily_pnl and total_pnl", () => {
  it("are JSON numbers carrying the decimal's exact digits, read back to the same decimal", () => {
    const dir = mkdtempSync(join(tmpdir(), "wolf-state-"));
    dirs.push(dir);
    const state = {
      ...freshState(WOLF_PRESET_NAMES[0]!, buildWolfConfig(WOLF_PRESET_NAMES[0]!), 0),
      daily_pnl: "-115.79741103",
      total_pnl: "2.5",
    };
    saveWolfState(dir, state);
    const text = readFileSync(statePath(dir), "utf8");
    expect(text).toContain('"daily_pnl": -115.79741103,');
    expect(text).toContain('"total_pnl": 2.5,');
    const parsed = JSON.parse(text) as Record<string, unknown>;
    expect(typeof parsed.daily_pnl).toBe("number");
    expect(typeof parsed.total_pnl).toBe("number");
    const loaded = loadWolfState(dir);
    expect(loaded.kind === "ok" && [loaded.state.daily_pnl, loaded.state.total_pnl]).toEqual([
      "-115.79741103",
      "2.5",
    ]);
  });
});
