import { migrate } from "../../src/db/migrate.ts";
import { createPool } from "../../src/db/pool.ts";
import { openSharedDb, type SharedDb } from "../../src/db/shared.ts";

/** Apply the migrations to a fresh test database. */
export async function migrated(url: string): Promise<void> {
  const pool = createPool(url);
  try {
    await migrate(pool);
  } finally {
    await pool.end();
  }
}

/** One replica's pool and LISTEN connection, named `replica-<i>` in the lease table. */
export function replicaDb(url: string, i: number, leaseMs?: number): Promise<SharedDb> {
  return openSharedDb(url, { replica: `replica-${i}`, leaseMs, log: () => undefined });
}
