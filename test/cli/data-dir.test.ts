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
});
