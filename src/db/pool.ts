import { createRequire } from "node:module";
import type * as Pg from "pg";
import { UserError } from "../core/errors.ts";

export type Pool = Pg.Pool;
export type PoolClient = Pg.PoolClient;

/** Loaded on the first pool: a service on its SQLite file never pays for the Postgres client. */
let pgModule: typeof Pg | undefined;
export const loadPg = (): typeof Pg => {
  pgModule ??= createRequire(import.meta.url)("pg") as typeof Pg;
  return pgModule;
};

const INT8_OID = 20;

/**
 * BIGINT columns hold millisecond timestamps and counts, all far below 2^53, so they are read as
 * numbers; NUMERIC keeps pg's default (a decimal string), so money never passes through a float.
 */
function typeParsers(pg: typeof Pg) {
  return {
    getTypeParser: ((oid: number, format?: "text" | "binary") =>
      oid === INT8_OID && format !== "binary"
        ? (v: string) => Number(v)
        : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
  };
}

/** The Postgres URL in DATABASE_URL, or undefined when the services keep their SQLite files. */
export function databaseUrl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const raw = env.DATABASE_URL?.trim();
  if (!raw) return undefined;
  if (!/^postgres(ql)?:\/\//.test(raw)) {
    throw new UserError("DATABASE_URL must be a postgres:// or postgresql:// URL");
  }
  return raw;
}

/** DATABASE_URL, or a readable error for commands that only make sense with Postgres. */
export function requireDatabaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  const url = databaseUrl(env);
  if (!url) throw new UserError("DATABASE_URL is not set (postgres://user:password@host:5432/db)");
  return url;
}

const CONNECT_TIMEOUT_MS = 5_000;

/** A connection pool on `url` (DATABASE_POOL_MAX connections, default 10). */
export function createPool(url: string, env: NodeJS.ProcessEnv = process.env): Pool {
  const max = Number(env.DATABASE_POOL_MAX ?? 10);
  if (!Number.isInteger(max) || max < 1) throw new UserError("DATABASE_POOL_MAX must be a positive integer");
  const pg = loadPg();
  // A server that does not answer (a network cut) fails a request after 5 s instead of hanging it.
  const pool = new pg.Pool({
    connectionString: url,
    max,
    types: typeParsers(pg),
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  return survivingOutages(pool);
}

/**
 * A pool whose connections may be lost (a Postgres restart, a network cut) without crashing the
 * process. pg reports a lost connection as an `error` event on its client as well as to the query in
 * flight; the pool listens only while a client is idle, so a client held between two statements
 * (a transaction, a lock held while the exchange is read) would throw it as uncaught. Each client
 * gets a listener of its own; the failed query reports the loss, and the pool drops the client.
 */
export function survivingOutages(pool: Pool): Pool {
  pool.on("error", () => undefined);
  pool.on("connect", (client) => {
    client.on("error", () => undefined);
  });
  return pool;
}

/** Run `fn` in one transaction on one connection; rolled back when it throws. */
export async function inTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
