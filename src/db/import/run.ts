import { existsSync } from "node:fs";
import Database from "better-sqlite3";
import { feedsConfig } from "../../services/feeds/config.ts";
import { isfrConfig } from "../../services/isfr/config.ts";
import { leaderboardConfig } from "../../services/leaderboard/config.ts";
import { pointsConfig } from "../../services/points/config.ts";
import { migrate } from "../migrate.ts";
import type { Pool } from "../pool.ts";
import { copyTable, type TableReport } from "./copy.ts";
import { IMPORT_PLAN, type TableImport } from "./plan.ts";

type Service = TableImport["service"];

/** Each service's SQLite file, where that service itself would open it under `env`. */
export function sqliteFiles(env: NodeJS.ProcessEnv): Record<Service, string> {
  return {
    leaderboard: leaderboardConfig(env).dbPath,
    points: pointsConfig("testnet", "", env).dbPath,
    isfr: isfrConfig(env).dbPath,
    feeds: feedsConfig(env).dbPath,
  };
}

interface ServiceImport {
  service: Service;
  file: string;
  /** False: no SQLite file there, nothing to copy. */
  found: boolean;
  tables: TableReport[];
}

/**
 * Copy a SQLite deployment (the files the services use under `env`) into Postgres: the schema is
 * migrated first, then each file is read in one snapshot and each table copied and verified.
 * Idempotent: rows already in Postgres are kept, so a second run adds nothing.
 */
export async function importSqlite(pool: Pool, env: NodeJS.ProcessEnv): Promise<ServiceImport[]> {
  await migrate(pool);
  const files = sqliteFiles(env);
  const results: ServiceImport[] = [];
  for (const service of ["leaderboard", "points", "isfr", "feeds"] as const) {
    const file = files[service];
    if (!existsSync(file)) {
      results.push({ service, file, found: false, tables: [] });
      continue;
    }
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      db.exec("BEGIN"); // one read snapshot for the counts and the rows
      const tables: TableReport[] = [];
      for (const t of IMPORT_PLAN.filter((p) => p.service === service))
        tables.push(await copyTable(db, pool, t));
      db.exec("COMMIT");
      results.push({ service, file, found: true, tables });
    } finally {
      db.close();
    }
  }
  return results;
}

/** One line per table, then the verdict; `ok` is false when any table's rows are not all in Postgres. */
export function importSummary(results: readonly ServiceImport[]): { lines: string[]; ok: boolean } {
  const lines: string[] = [];
  let ok = true;
  for (const r of results) {
    if (!r.found) {
      lines.push(`${r.service}: no SQLite file at ${r.file}, nothing to import`);
      continue;
    }
    lines.push(`${r.service}: ${r.file}`);
    for (const t of r.tables) {
      const verdict = t.problem ? `MISMATCH: ${t.problem}` : "ok";
      lines.push(
        `  ${t.from} -> ${t.to}: sqlite ${t.sqliteRows}, copied ${t.present} (${t.added} new), postgres ${t.postgresRows}  ${verdict}`,
      );
      if (t.problem) ok = false;
    }
  }
  lines.push(
    ok ? "import verified: every SQLite row is in Postgres" : "import NOT verified: row counts differ",
  );
  return { lines, ok };
}
