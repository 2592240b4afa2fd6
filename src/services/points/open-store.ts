import type { LogSink } from "../../db/log.ts";
import { PostgresPointsStore } from "./pg-store.ts";
import { type PointsStore, SqlitePointsStore } from "./store.ts";

/** Postgres when the config has a DATABASE_URL, else the SQLite file at `dbPath`. */
export function openPointsStore(
  config: { dbPath: string; databaseUrl?: string | undefined },
  env: NodeJS.ProcessEnv = process.env,
  log?: LogSink,
): PointsStore {
  return config.databaseUrl
    ? PostgresPointsStore.connect(config.databaseUrl, env, log)
    : new SqlitePointsStore(config.dbPath);
}
