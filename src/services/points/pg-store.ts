import { connectMigrated } from "../../db/connect.ts";
import { type Fence, fencedTransaction } from "../../db/leader.ts";
import { asLog, type LogSink } from "../../db/log.ts";
import { loadPg, type Pool, survivingOutages } from "../../db/pool.ts";
import { StoreHealth } from "../../db/store-health.ts";
import type { PointsStore, StoredFill, StoredMark, WalletSync } from "./store.ts";

/** Rows per INSERT: arrays are single parameters, this only bounds one statement's work. */
const BATCH = 5_000;

/**
 * Connections that hold wallet locks. They are a pool of their own: a lock holder's queries go to the
 * main pool, so however many syncs wait for locks, none waits for a connection a lock holder needs.
 */
const LOCK_CONNECTIONS = 4;

/** Postgres's clock in ms: replicas judge a sync's age by the same clock. */
const NOW_MS = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint";

/**
 * The points store in Postgres (points_marks, points_wallet_fills, points_wallet_sync), shared by
 * replicas. A store bound to a fence (`fenced`, the elected `points:sync` writer's) records syncs only
 * while that writer is still elected. Every query goes through `health`: an unreachable database is a
 * StoreUnavailableError (503), logged once per outage.
 */
export class PostgresPointsStore implements PointsStore {
  private locks: Pool | undefined;
  readonly health: StoreHealth;

  /**
   * @param ready queries wait for it (the schema migration)
   * @param ownsPool close() ends the pool
   */
  constructor(
    private readonly pool: Pool,
    readonly ready: Promise<void> = Promise.resolve(),
    private readonly ownsPool = false,
    private readonly fence?: Fence,
    health?: StoreHealth,
  ) {
    this.health = health ?? new StoreHealth(asLog(undefined, "points"), () => pool.query("SELECT 1"));
  }

  /** The same store, recording syncs as the holder of `fence` (refused once another replica took over). */
  fenced(fence: Fence): PostgresPointsStore {
    const store = new PostgresPointsStore(this.pool, this.ready, false, fence, this.health);
    store.locks = this.lockPool();
    return store;
  }

  private lockPool(): Pool {
    if (!this.locks) {
      this.locks = survivingOutages(new (loadPg().Pool)({ ...this.pool.options, max: LOCK_CONNECTIONS }));
    }
    return this.locks;
  }

  async exclusiveSync(wallet: string, freshMs: number, sync: () => Promise<void>): Promise<boolean> {
    await this.ready;
    const lock = [`points:wallet:${wallet}`];
    // Only the lock's own queries are the store's; `sync` reports its failures (the exchange's) itself.
    const { client, fresh } = await this.health.guard(async () => {
      const client = await this.lockPool().connect();
      try {
        await client.query("SELECT pg_advisory_lock(hashtextextended($1, 0))", lock);
        const fresh = await client.query(
          `SELECT 1 FROM points_wallet_sync WHERE wallet = $1 AND synced_at_ms > ${NOW_MS} - $2::bigint`,
          [wallet, freshMs],
        );
        return { client, fresh: fresh.rowCount === 1 };
      } catch (err) {
        // A connection that failed mid-way is not given back to the pool for reuse.
        client.release(err instanceof Error ? err : true);
        throw err;
      }
    });
    let broken: Error | undefined;
    try {
      if (fresh) return false;
      await sync();
      return true;
    } finally {
      await this.health
        .guard(() => client.query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", lock))
        .catch((err: unknown) => {
          broken = err instanceof Error ? err : new Error(String(err)); // the lock went with the session
        });
      client.release(broken ?? undefined);
    }
  }

  /** A store on its own pool, migrating the schema first; `log` hears start-up waits and outages. */
  static connect(url: string, env: NodeJS.ProcessEnv = process.env, log?: LogSink): PostgresPointsStore {
    const { pool, ready } = connectMigrated(url, env, log);
    const health = new StoreHealth(asLog(log), () => pool.query("SELECT 1"));
    return new PostgresPointsStore(pool, ready, true, undefined, health);
  }

  private async query<R extends object>(sql: string, params: unknown[] = []): Promise<R[]> {
    await this.ready;
    return this.health.guard(async () => (await this.pool.query<R>(sql, params)).rows);
  }

  async addMarks(marks: readonly StoredMark[]): Promise<void> {
    // One statement may not update a row twice: the last price of a timestamp wins, as in SQLite.
    const byTs = new Map(marks.map((m) => [m.ts, m.px]));
    const all = [...byTs];
    for (let i = 0; i < all.length; i += BATCH) {
      const chunk = all.slice(i, i + BATCH);
      await this.query(
        `INSERT INTO points_marks (ts, px) SELECT * FROM unnest($1::bigint[], $2::numeric[])
         ON CONFLICT (ts) DO UPDATE SET px = EXCLUDED.px`,
        [chunk.map(([ts]) => ts), chunk.map(([, px]) => px)],
      );
    }
  }

  async lastMarkTs(): Promise<number | undefined> {
    const [row] = await this.query<{ ts: number | null }>("SELECT MAX(ts) AS ts FROM points_marks");
    return row?.ts ?? undefined;
  }

  async marksAt(times: readonly number[], toleranceMs: number): Promise<(string | null)[]> {
    if (times.length === 0) return [];
    const rows = await this.query<{ px: string | null; age: number | null }>(
      `SELECT m.px::text AS px, t.time - m.ts AS age
       FROM unnest($1::bigint[]) WITH ORDINALITY AS t(time, i)
       LEFT JOIN LATERAL (
         SELECT ts, px FROM points_marks WHERE ts <= t.time ORDER BY ts DESC LIMIT 1
       ) m ON TRUE
       ORDER BY t.i`,
      [times],
    );
    return rows.map((r) => (r.px !== null && r.age !== null && r.age <= toleranceMs ? r.px : null));
  }

  async walletSync(wallet: string): Promise<WalletSync | undefined> {
    const [row] = await this.query<{ through_ms: number; missing_before_ms: number | null }>(
      "SELECT through_ms, missing_before_ms FROM points_wallet_sync WHERE wallet = $1",
      [wallet],
    );
    return row && { throughMs: row.through_ms, missingBeforeMs: row.missing_before_ms };
  }

  async recordSync(
    wallet: string,
    fills: readonly StoredFill[],
    throughMs: number,
    missingBeforeMs: number | null,
  ): Promise<number> {
    await this.ready;
    return this.health.guard(() => this.fencedSync(wallet, fills, throughMs, missingBeforeMs));
  }

  private fencedSync(
    wallet: string,
    fills: readonly StoredFill[],
    throughMs: number,
    missingBeforeMs: number | null,
  ): Promise<number> {
    return fencedTransaction(this.pool, this.fence, async (client) => {
      let added = 0;
      for (let i = 0; i < fills.length; i += BATCH) {
        const chunk = fills.slice(i, i + BATCH);
        const res = await client.query(
          `INSERT INTO points_wallet_fills (wallet, tid, time, side, px, sz, crossed, builder_fee)
           SELECT $1, * FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::numeric[], $6::numeric[],
             $7::boolean[], $8::numeric[])
           ON CONFLICT (wallet, tid) DO NOTHING`,
          [
            wallet,
            chunk.map((f) => f.tid),
            chunk.map((f) => f.time),
            chunk.map((f) => f.side),
            chunk.map((f) => f.px),
            chunk.map((f) => f.sz),
            chunk.map((f) => f.crossed),
            chunk.map((f) => f.builderFee),
          ],
        );
        added += res.rowCount ?? 0;
      }
      await client.query(
        `INSERT INTO points_wallet_sync (wallet, through_ms, missing_before_ms, synced_at_ms)
         VALUES ($1, $2, $3, ${NOW_MS})
         ON CONFLICT (wallet) DO UPDATE SET
           synced_at_ms = EXCLUDED.synced_at_ms,
           through_ms = GREATEST(points_wallet_sync.through_ms, EXCLUDED.through_ms),
           missing_before_ms = GREATEST(COALESCE(points_wallet_sync.missing_before_ms, 0),
             COALESCE(EXCLUDED.missing_before_ms, 0))`,
        [wallet, throughMs, missingBeforeMs],
      );
      return added;
    });
  }

  async fillsSince(wallet: string, fromMs: number): Promise<StoredFill[]> {
    const rows = await this.query<{
      tid: number;
      time: number;
      side: "B" | "A";
      px: string;
      sz: string;
      crossed: boolean;
      builder_fee: string | null;
    }>(
      `SELECT tid, time, side, px::text AS px, sz::text AS sz, crossed, builder_fee::text AS builder_fee
       FROM points_wallet_fills WHERE wallet = $1 AND time >= $2 ORDER BY time, tid`,
      [wallet, fromMs],
    );
    return rows.map((r) => ({
      tid: r.tid,
      time: r.time,
      side: r.side,
      px: r.px,
      sz: r.sz,
      crossed: r.crossed,
      builderFee: r.builder_fee,
    }));
  }

  async knownWallets(): Promise<string[]> {
    return (
      await this.query<{ wallet: string }>("SELECT wallet FROM points_wallet_sync ORDER BY wallet")
    ).map((r) => r.wallet);
  }

  async close(): Promise<void> {
    if (!this.ownsPool) return;
    await this.locks?.end();
    await this.pool.end();
  }
}
