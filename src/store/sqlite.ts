import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";

export type Db = Database.Database;

/** Open (creating its directory) a SQLite file in WAL mode and apply the given schema statements. */
export function openDb(path: string, schema: readonly string[] = []): Db {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 5000");
  for (const stmt of schema) db.exec(stmt);
  return db;
}
