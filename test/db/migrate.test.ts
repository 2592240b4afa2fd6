import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { loadMigrations, type Migration, migrate, migrationStatus } from "../../src/db/migrate.ts";
import { createPool, databaseUrl, type Pool } from "../../src/db/pool.ts";
import { usePostgres } from "../support/postgres.ts";

const postgres = usePostgres();
const pools: Pool[] = [];

async function freshPool(): Promise<Pool> {
  const pool = createPool(await postgres.current.freshDatabase());
  pools.push(pool);
  return pool;
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.end()));
});

const tables = async (pool: Pool) =>
  (
    await pool.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
    )
  ).rows.map((r) => r.table_name);

describe("Postgres migrations", () => {
  it("the shipped files are numbered, in order, and create the leaderboard and points tables", async () => {
    const files = loadMigrations();
    expect(files[0]?.name).toBe("0001_leaderboard_points.sql");
    expect(files.map((m) => m.name)).toEqual([...files.map((m) => m.name)].sort());
    const pool = await freshPool();
    expect(await migrate(pool)).toEqual(files.map((m) => m.name));
    expect(await tables(pool)).toEqual(
      expect.arrayContaining([
        "leaderboard_agents",
        "points_marks",
        "points_wallet_fills",
        "points_wallet_sync",
        "schema_migrations",
      ]),
    );
    const status = await migrationStatus(pool);
    expect(status.every((s) => s.appliedAt !== null && !s.changed && !s.unknown)).toBe(true);
  });

  it("a re-run applies nothing and changes nothing", async () => {
    const pool = await freshPool();
    await migrate(pool);
    await pool.query("INSERT INTO points_marks (ts, px) VALUES (1, '100.5')");
    expect(await migrate(pool)).toEqual([]);
    expect((await pool.query("SELECT px FROM points_marks")).rows).toEqual([{ px: "100.5" }]);
    expect(Number((await pool.query("SELECT COUNT(*) AS n FROM schema_migrations")).rows[0].n)).toBe(
      loadMigrations().length,
    );
  });

  it("replicas migrating at the same moment apply each migration exactly once", async () => {
    const url = await postgres.current.freshDatabase();
    const replicas = Array.from({ length: 4 }, () => createPool(url));
    pools.push(...replicas);
    const applied = await Promise.all(replicas.map((p) => migrate(p)));
    expect(applied.flat().sort()).toEqual(loadMigrations().map((m) => m.name));
    expect(applied.filter((a) => a.length > 0)).toHaveLength(1);
  });

  it("a failing migration leaves nothing behind, and later files apply in name order", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hl-migrations-"));
    writeFileSync(join(dir, "0002_second.sql"), "CREATE TABLE second (id INT);");
    writeFileSync(join(dir, "0001_first.sql"), "CREATE TABLE first (id INT);");
    writeFileSync(
      join(dir, "0003_broken.sql"),
      "CREATE TABLE third (id INT); SELECT no_such_column FROM first;",
    );
    writeFileSync(join(dir, "notes.txt"), "not a migration");
    const files: Migration[] = loadMigrations(pathToFileURL(`${dir}/`));
    expect(files.map((m) => m.name)).toEqual(["0001_first.sql", "0002_second.sql", "0003_broken.sql"]);
    const pool = await freshPool();
    await expect(migrate(pool, files)).rejects.toThrow(/0003_broken\.sql failed: .*no_such_column/);
    expect(await tables(pool)).toEqual([]); // even the bookkeeping table was rolled back
    expect(await migrate(pool, files.slice(0, 2))).toEqual(["0001_first.sql", "0002_second.sql"]);
    const status = await migrationStatus(pool, files);
    expect(status.map((s) => [s.name, s.appliedAt !== null])).toEqual([
      ["0001_first.sql", true],
      ["0002_second.sql", true],
      ["0003_broken.sql", false],
    ]);
  });

  it("status flags a file edited after it was applied, and a migration this build does not know", async () => {
    const pool = await freshPool();
    const [first] = loadMigrations();
    await migrate(pool, [first!]);
    await pool.query(
      "INSERT INTO schema_migrations (name, checksum, applied_at) VALUES ('9999_newer.sql', 'x', 1)",
    );
    const status = await migrationStatus(pool, [{ ...first!, checksum: "edited" }]);
    expect(status).toEqual([
      { name: first!.name, appliedAt: expect.any(Number), changed: true, unknown: false },
      { name: "9999_newer.sql", appliedAt: 1, changed: false, unknown: true },
    ]);
  });

  it("reports the embedded server's start time", () => {
    process.stderr.write(`embedded Postgres started in ${postgres.current.startMs} ms\n`);
    expect(postgres.current.startMs).toBeGreaterThan(0);
  });

  it("DATABASE_URL: unset or blank means SQLite; anything but a postgres URL is refused", () => {
    expect(databaseUrl({})).toBeUndefined();
    expect(databaseUrl({ DATABASE_URL: "  " })).toBeUndefined();
    expect(databaseUrl({ DATABASE_URL: "postgresql://u@h/db" })).toBe("postgresql://u@h/db");
    expect(() => databaseUrl({ DATABASE_URL: "mysql://x@y/z" })).toThrow(
      "DATABASE_URL must be a postgres:// or postgresql:// URL",
    );
  });
});
