import { copyFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";

/** Where the predecessor's `cli/state.db` is kept once migrated. */
const PREDECESSOR_DB_FILE = "state.predecessor.db";

interface PredecessorPosition {
  avg_entry?: unknown;
  avg_entry_price?: unknown;
}

/**
 * The predecessor's `kv(key, value, updated_at NOT NULL)` store, before this project's engine
 * writes to it: the file is kept beside as `state.predecessor.db`, then the table becomes
 * `kv(key, value)` and each stored position's `avg_entry` is renamed `avg_entry_price`. Returns the
 * kept file's path, or null when the store is not the predecessor's (or absent).
 */
export function migratePredecessorKv(path: string): string | null {
  if (!existsSync(path)) return null;
  const db = new Database(path, { timeout: 5000 });
  try {
    const columns = (db.prepare("PRAGMA table_info(kv)").all() as { name: string }[]).map((c) => c.name);
    if (!columns.includes("updated_at")) return null;
    const kept = join(dirname(path), PREDECESSOR_DB_FILE);
    if (!existsSync(kept)) {
      db.pragma("wal_checkpoint(TRUNCATE)");
      copyFileSync(path, kept);
    }
    db.transaction(() => {
      const rows = db.prepare("SELECT key, value FROM kv").all() as { key: string; value: string }[];
      db.exec("DROP TABLE kv; CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT)");
      const insert = db.prepare("INSERT INTO kv (key, value) VALUES (?, ?)");
      for (const r of rows) insert.run(r.key, r.key === "positions" ? renamedEntries(r.value) : r.value);
    })();
    return kept;
  } finally {
    db.close();
  }
}

function renamedEntries(value: string): string {
  let parsed: { agents?: Record<string, Record<string, PredecessorPosition>> };
  try {
    parsed = JSON.parse(value);
  } catch {
    return value;
  }
  for (const byInstrument of Object.values(parsed.agents ?? {})) {
    for (const p of Object.values(byInstrument)) {
      if (p.avg_entry !== undefined && p.avg_entry_price === undefined) {
        p.avg_entry_price = p.avg_entry;
        delete p.avg_entry;
      }
    }
  }
  return JSON.stringify(parsed);
}
