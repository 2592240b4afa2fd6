import pg from "pg";
import { PgListener } from "./notify.ts";

/**
 * What a replica of a public service needs from the shared Postgres: a pool for reads and fenced
 * writes, the URL (elections hold their own connection), and the process's one LISTEN connection.
 */
export interface SharedDb {
  pool: pg.Pool;
  url: string;
  listener: PgListener;
  /** This replica's name in `leader_leases` (default host:pid). */
  replica?: string;
  /** Lease of an elected writer (default 3 s): a hung writer is replaced this long after its last renewal. */
  leaseMs?: number;
  close(): Promise<void>;
}

export async function openSharedDb(
  url: string,
  opts: { replica?: string; leaseMs?: number; log?: (line: string) => void } = {},
): Promise<SharedDb> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on("error", () => undefined); // an idle client's lost connection: the next query opens another
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
