import { PgListener } from "./notify.ts";
import { createPool, type Pool } from "./pool.ts";

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
  /** Lease of an elected writer (default 3 s): a hung writer is replaced this long after its last renewal. */
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
