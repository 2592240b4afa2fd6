import type Database from "better-sqlite3";
import { sqliteOnDemand } from "../store/sqlite-on-demand.ts";

/**
 * Why the engine whose state is at `path` (`cli/state.db`, see state-store.ts) stopped itself on a
 * risk hard stop (its `run` row says "halted"), or undefined (running, stopped otherwise, or no
 * readable state). Read-only; SQLite loads with the first call.
 */
export function readRunHalt(path: string): string | undefined {
  let db: Database.Database | undefined;
  try {
    db = new (sqliteOnDemand())(path, { readonly: true, fileMustExist: true });
    const row = db.prepare("SELECT value FROM kv WHERE key = 'run'").get() as { value: string } | undefined;
    const run = row ? (JSON.parse(row.value) as { status?: unknown; halt_reason?: unknown }) : undefined;
    if (run?.status !== "halted") return undefined;
    return typeof run.halt_reason === "string" && run.halt_reason !== "" ? run.halt_reason : "risk hard stop";
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}
