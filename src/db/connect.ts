import type { LogSink } from "./log.ts";
import { migrate } from "./migrate.ts";
import { createPool, type Pool } from "./pool.ts";
import { whenReachable } from "./reachable.ts";

/** A pool whose schema is brought up to date before any store query runs on it. */
interface MigratedPool {
  pool: Pool;
  /** Settles when the pending migrations are applied (rejects when they fail). */
  ready: Promise<void>;
}

/**
 * Open a pool on `url` and apply pending migrations in the background: a service starts (and binds
 * its port) at once, and its stores wait for `ready` before their first query. A Postgres not up yet
 * is waited for (see whenReachable). Replicas starting together are serialised by the migration lock.
 */
export function connectMigrated(
  url: string,
  env: NodeJS.ProcessEnv = process.env,
  log?: LogSink,
): MigratedPool {
  const pool = createPool(url, env);
  const ready = whenReachable(url, () => migrate(pool), { env, log }).then(() => undefined);
  // Reported by the first query that awaits it; never an unhandled rejection in the meantime.
  ready.catch(() => undefined);
  return { pool, ready };
}
