import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/store/sqlite.ts";
import { startTogether } from "../fixtures/start-together.ts";

const RACER = join(import.meta.dirname, "../fixtures/open-db-race.mjs");
const dir = mkdtempSync(join(tmpdir(), "sqlite-open-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("openDb", () => {
  // Regression: two `hl leaderboard register` processes on a new database once failed with
  // SQLITE_BUSY while both switched the file to WAL (SQLite skips the busy handler there).
  it("lets several processes create the same fresh database at the same instant", async () => {
    const processes = 2;
    const rounds = 15;
    // Two processes: more would only take turns on a two-core machine instead of colliding.
    const outputs = await startTogether(RACER, [dir, "100", String(rounds)], processes);
    const failures = outputs.flatMap((out) => (JSON.parse(out) as string[]).filter((o) => o !== "ok"));
    expect(failures).toEqual([]);
    for (let r = 0; r < rounds; r++) {
      const db = openDb(join(dir, `race-${r}.db`));
      expect(db.prepare("SELECT COUNT(*) AS n FROM t").get()).toEqual({ n: processes });
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      db.close();
    }
  }, 90_000);
});
