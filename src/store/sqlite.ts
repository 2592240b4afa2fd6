import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";

export type Db = Database.Database;

const BUSY_TIMEOUT_MS = 5000;

/**
 * Open (creating its directory) a SQLite file in WAL mode and apply the given schema statements.
 * Several processes may open the same fresh file at once (`hl up` children, CLI commands run side by
 * side): switching to WAL then races for an exclusive lock and SQLite answers SQLITE_BUSY without
 * consulting the busy handler, so that switch is retried; the schema runs in an IMMEDIATE transaction
 * so its write lock is waited for instead of failing on a stale read snapshot.
 */
export function openDb(path: string, schema: readonly string[] = []): Db {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
  retryWhileBusy(() => db.pragma("journal_mode = WAL"));
  db.pragma("synchronous = NORMAL");
  applySchema(db, schema);
  return db;
}

/**
 * Open an existing SQLite file for reading only: no journal-mode switch, no schema, no file created or
 * changed (a reader of someone else's data, e.g. a predecessor's volume, must leave every byte as it was).
 */
export function openDbReadOnly(path: string): Db {
  return new Database(path, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
}

/** Run schema statements (idempotent `CREATE … IF NOT EXISTS`) under one IMMEDIATE write lock. */
function applySchema(db: Db, schema: readonly string[]): void {
  if (schema.length === 0) return;
  db.transaction(() => {
    for (const stmt of schema) db.exec(stmt);
  }).immediate();
}

function retryWhileBusy<T>(fn: () => T): T {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      return fn();
    } catch (err) {
      const busy = (err as { code?: unknown }).code === "SQLITE_BUSY";
      if (!busy || Date.now() >= deadline) throw err;
      Atomics.wait(pause, 0, 0, 5 + Math.floor(Math.random() * 20));
    }
  }
}
