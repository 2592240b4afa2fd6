import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import type { Pool, PoolClient } from "./pool.ts";
import { inTransaction } from "./pool.ts";

/** One versioned schema change: a `NNNN_name.sql` file, applied once, in name order. */
export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

interface MigrationState {
  name: string;
  /** When it was applied (ms), or null while pending. */
  appliedAt: number | null;
  /** Applied, but the file's text differs from what was applied. */
  changed: boolean;
  /** Recorded in the database but no longer among the files (a newer version applied it). */
  unknown: boolean;
}

/** Any constant shared by every replica: whoever holds it is the one migrating. */
const MIGRATION_LOCK_KEY = 7_245_310_001;

const MIGRATIONS_DIR = new URL("./migrations/", import.meta.url);
const FILE_NAME = /^\d{4}_[a-z0-9_]+\.sql$/;

/** The migration files shipped with this build (src/db/migrations, copied to dist by the build). */
export function loadMigrations(dir: URL = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => FILE_NAME.test(f))
    .sort()
    .map((name) => {
      const sql = readFileSync(new URL(name, dir), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

async function lockAndReadApplied(
  client: PoolClient,
): Promise<Map<string, { at: number; checksum: string }>> {
  await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_KEY]);
  await client.query(
    `CREATE TABLE IF NOT EXISTS schema_migrations (
       name TEXT PRIMARY KEY,
       checksum TEXT NOT NULL,
       applied_at BIGINT NOT NULL
     )`,
  );
  const rows = await client.query<{ name: string; checksum: string; applied_at: number }>(
    "SELECT name, checksum, applied_at FROM schema_migrations",
  );
  return new Map(rows.rows.map((r) => [r.name, { at: r.applied_at, checksum: r.checksum }]));
}

/**
 * Apply the pending migrations in name order, in one transaction under an advisory lock: replicas
 * starting together wait for the first, then find nothing left to do; a failing migration leaves
 * the schema as it was. Returns the names applied.
 */
export async function migrate(
  pool: Pool,
  migrations: readonly Migration[] = loadMigrations(),
): Promise<string[]> {
  return inTransaction(pool, async (client) => {
    const applied = await lockAndReadApplied(client);
    const done: string[] = [];
    for (const m of migrations) {
      if (applied.has(m.name)) continue;
      try {
        await client.query(m.sql);
      } catch (err) {
        throw new Error(`migration ${m.name} failed: ${err instanceof Error ? err.message : String(err)}`);
      }
      await client.query("INSERT INTO schema_migrations (name, checksum, applied_at) VALUES ($1, $2, $3)", [
        m.name,
        m.checksum,
        Date.now(),
      ]);
      done.push(m.name);
    }
    return done;
  });
}

/** Every migration file and every recorded migration, with what was applied when. */
export async function migrationStatus(
  pool: Pool,
  migrations: readonly Migration[] = loadMigrations(),
): Promise<MigrationState[]> {
  const applied = await inTransaction(pool, lockAndReadApplied);
  const states: MigrationState[] = migrations.map((m) => {
    const a = applied.get(m.name);
    return {
      name: m.name,
      appliedAt: a?.at ?? null,
      changed: a !== undefined && a.checksum !== m.checksum,
      unknown: false,
    };
  });
  const known = new Set(migrations.map((m) => m.name));
  for (const [name, a] of applied) {
    if (!known.has(name)) states.push({ name, appliedAt: a.at, changed: false, unknown: true });
  }
  return states.sort((x, y) => x.name.localeCompare(y.name));
}
