import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { traderDataDir } from "../../src/cli/data-dir.ts";

describe("--data-dir root", () => {
  it("after hl up (agent/ and logs/ under the root), names the agent's data; otherwise itself", () => {
    const up = mkdtempSync(join(tmpdir(), "hl-up-root-"));
    mkdirSync(join(up, "agent", "journal"), { recursive: true });
    mkdirSync(join(up, "logs"));
    expect(traderDataDir(up)).toBe(join(up, "agent"));
    const own = mkdtempSync(join(tmpdir(), "hl-root-"));
    mkdirSync(join(own, "wolf"));
    mkdirSync(join(own, "agent"));
    mkdirSync(join(own, "logs"));
    expect(traderDataDir(own)).toBe(own); // a trader's own data at the root wins
  });

  it("hl up's whole layout wins over what a later `hl run` wrote at its root by default", () => {
    // `npm start`, then `hl run simple_mm … --network paper` in the same directory (./data is the
    // default of both): the run's cli/, memory/ and paper/ land beside hl up's; `--data-dir data`
    // must still name the hl up agent's data, as the docs say.
    const up = mkdtempSync(join(tmpdir(), "hl-up-root-"));
    for (const d of ["agent/wolf", "logs", "house-1", "sim", "cli", "memory", "paper"])
      mkdirSync(join(up, d), { recursive: true });
    expect(traderDataDir(up)).toBe(join(up, "agent"));
  });
});
