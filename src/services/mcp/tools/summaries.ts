import { join } from "node:path";
import Database from "better-sqlite3";
import { statusFromKv } from "../../../engine/status.ts";
import { loadWolfState } from "../../../wolf/state.ts";
import { wolfStatus } from "../../../wolf/status.ts";

/** WOLF's status in the contract's shape, read from state.json (null before the first run). */
export function wolfSummary(dataDir: string): unknown {
  const load = loadWolfState(dataDir);
  return load.kind === "ok" ? wolfStatus(load.state) : null;
}

/** The single-strategy status in the contract's shape, from cli/state.db (null before the first run). */
export function engineSummary(dataDir: string): unknown {
  try {
    const db = new Database(join(dataDir, "cli", "state.db"), { readonly: true, fileMustExist: true });
    try {
      const rows = db.prepare("SELECT key, value FROM kv").all() as { key: string; value: string }[];
      return statusFromKv(Object.fromEntries(rows.map((r) => [r.key, r.value])));
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}
