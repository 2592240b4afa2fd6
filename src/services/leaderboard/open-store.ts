import type { LogSink } from "../../db/log.ts";
import { PostgresAgentStore } from "./pg-store.ts";
import { type AgentStore, SqliteAgentStore } from "./store.ts";

/** Postgres when the config has a DATABASE_URL, else the SQLite file at `dbPath`. */
export function openAgentStore(
  config: { dbPath: string; databaseUrl?: string | undefined },
  env: NodeJS.ProcessEnv = process.env,
  log?: LogSink,
): AgentStore {
  return config.databaseUrl
    ? PostgresAgentStore.connect(config.databaseUrl, env, log)
    : new SqliteAgentStore(config.dbPath);
}
