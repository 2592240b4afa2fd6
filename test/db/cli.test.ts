import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadMigrations, migrate } from "../../src/db/migrate.ts";
import { createPool } from "../../src/db/pool.ts";
import { SqliteAgentStore } from "../../src/services/leaderboard/store.ts";
import { type HlOutcome, runHl } from "../support/hl-process.ts";
import { usePostgres } from "../support/postgres.ts";

/** `hl db …` as real processes against an embedded Postgres. */

const postgres = usePostgres();
const root = mkdtempSync(join(tmpdir(), "hl-db-cli-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const PREDECESSOR = join(import.meta.dirname, "../fixtures/predecessor-data");

/** A data dir whose leaderboard has one agent (the other services never ran there). */
async function leaderboardOnly(): Promise<string> {
  const dataDir = mkdtempSync(join(root, "data-"));
  const store = new SqliteAgentStore(join(dataDir, "leaderboard.db"));
  await store.insert({
    network: "testnet",
    address: `0x${"1".repeat(40)}`,
    displayName: "alice",
    initialAccountValue: "1000.5",
    registeredAt: 1_700_000_000_000,
    ledgerMark: null,
    positionsCount: 0,
  });
  await store.close();
  return dataDir;
}

function hl(env: NodeJS.ProcessEnv, ...args: string[]): Promise<HlOutcome> {
  return runHl(args, { ...process.env, ...env });
}

describe("hl db", () => {
  it("migrate applies every migration once; status lists them applied", async () => {
    const env = { DATABASE_URL: await postgres.current.freshDatabase() };
    const names = loadMigrations().map((m) => m.name);
    const first = await hl(env, "db", "migrate");
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(`${names.map((n) => `applied ${n}\n`).join("")}${names.length} applied\n`);
    const again = await hl(env, "db", "migrate");
    expect(again.stdout).toBe("schema up to date\n");
    const status = await hl(env, "db", "status");
    expect(status.code).toBe(0);
    expect(status.stdout.trim().split("\n")).toEqual(
      names.map((n) => expect.stringMatching(new RegExp(`^${n}  applied \\d{4}-\\d\\d-\\d\\dT`))),
    );
  });

  it("without DATABASE_URL it exits non-zero with one readable line, never having loaded the Postgres client", async () => {
    const trace = join(root, "modules.trace");
    const unset = await hl({ DATABASE_URL: "", HL_TRACE_MODULES: trace }, "db", "migrate");
    expect(unset.code).not.toBe(0);
    expect(unset.stderr).toBe("error: DATABASE_URL is not set (postgres://user:password@host:5432/db)\n");
    const loaded = readFileSync(trace, "utf8");
    expect(loaded).toMatch(/\/(src|dist)\/db\/pool\.(ts|js)\n/);
    expect(loaded).not.toMatch(/node_modules\/pg\//);
  });

  it("import copies a data dir and prints what it copied and verified", async () => {
    const env = { DATABASE_URL: await postgres.current.freshDatabase(), DATA_DIR: join(root, "elsewhere") };
    const dataDir = await leaderboardOnly();
    const first = await hl(env, "db", "import", "--data-dir", dataDir);
    expect(first.code, first.stderr).toBe(0);
    const lines = first.stdout.trim().split("\n");
    expect(lines.slice(0, 2)).toEqual([
      `leaderboard: ${join(dataDir, "leaderboard.db")}`,
      "  agents -> leaderboard_agents: sqlite 1, copied 1 (1 new), postgres 1  ok",
    ]);
    expect(lines).toContain(
      `points: no SQLite file at ${join(dataDir, "points", "points.db")}, nothing to import`,
    );
    expect(lines.at(-1)).toBe("import verified: every SQLite row is in Postgres");
  });

  it("import exits non-zero when a row cannot be verified in Postgres", async () => {
    const url = await postgres.current.freshDatabase();
    const pool = createPool(url);
    await migrate(pool);
    await pool.query("DROP TABLE leaderboard_agents");
    await pool.end();
    const r = await hl({ DATABASE_URL: url }, "db", "import", "--data-dir", await leaderboardOnly());
    expect(r.code).not.toBe(0);
    expect(r.stdout).toContain("MISMATCH: Postgres has no table leaderboard_agents");
    expect(r.stderr).toBe("error: import: row counts differ between SQLite and Postgres (see above)\n");
  });

  it("a predecessor's data dir (no public-service files) imports nothing and is not refused", async () => {
    const dataDir = mkdtempSync(join(root, "predecessor-"));
    cpSync(PREDECESSOR, dataDir, { recursive: true });
    const r = await hl(
      { DATABASE_URL: await postgres.current.freshDatabase() },
      "db",
      "import",
      "--data-dir",
      dataDir,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        `leaderboard: no SQLite file at ${join(dataDir, "leaderboard.db")}, nothing to import`,
        `points: no SQLite file at ${join(dataDir, "points", "points.db")}, nothing to import`,
        `isfr: no SQLite file at ${join(dataDir, "isfr.db")}, nothing to import`,
        `feeds: no SQLite file at ${join(dataDir, "feeds", "feeds.db")}, nothing to import`,
        "import verified: every SQLite row is in Postgres",
        "",
      ].join("\n"),
    );
  });
});
