import { migrate } from "./migrate.ts";
import { PgListener } from "./notify.ts";
import { createPool, databaseUrl, type Pool } from "./pool.ts";
import { whenReachable } from "./reachable.ts";

/**
 * What a replica of a public service needs from the shared Postgres: a pool for reads and fenced
 * writes, the URL (elections hold their own connection), and the process's one LISTEN connection.
 */
export interface SharedDb {
  pool: Pool;
  url: string;
  listener: PgListener;
  /** This replica's name in `leader_leases` (default host:pid). */
  replica?: string;
  /** Lease of an elected writer (default 2.5 s): a hung writer is replaced this long after its last renewal. */
  leaseMs?: number;
  close(): Promise<void>;
}

/** Open the pool and the LISTEN connection of one replica (the schema is `hl db migrate`'s job). */
export async function openSharedDb(
  url: string,
  opts: { replica?: string; leaseMs?: number; log?: (line: string) => void; env?: NodeJS.ProcessEnv } = {},
): Promise<SharedDb> {
  const pool = createPool(url, opts.env);
  const listener = new PgListener({ connectionString: url, log: opts.log });
  try {
    await listener.start();
  } catch (err) {
    await pool.end();
    throw err;
  }
  return {
    pool,
    url,
    listener,
    replica: opts.replica,
    leaseMs: opts.leaseMs,
    async close() {
      await listener.close();
      await pool.end();
    },
  };
}

/**
 * The shared Postgres of a replica when DATABASE_URL is set (its schema brought up to date first;
 * replicas starting together are serialised by the migration lock; a Postgres not up yet is waited
 * for, see whenReachable), or undefined: the service then keeps its SQLite file and this process is
 * the only writer, as on one machine.
 */
export async function replicaDbFromEnv(
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<SharedDb | undefined> {
  const url = databaseUrl(env);
  if (!url) return undefined;
  const pool = createPool(url, env);
  try {
    await whenReachable(url, () => migrate(pool), { env, log });
  } finally {
    await pool.end();
  }
  return openSharedDb(url, { env, log, replica: env.HL_REPLICA_NAME });
}
