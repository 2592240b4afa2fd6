import type pg from "pg";
import { type Fence, fencedTransaction } from "../../db/leader.ts";
import { type Snapshot, type SnapshotStore, type SourceState, snapshotSchema } from "./snapshot-store.ts";

/** NOTIFY channel of stored snapshots; the payload is the snapshot's time (ms). */
export const ISFR_SNAPSHOT_CHANNEL = "isfr_snapshot";

/**
 * ISFR in Postgres, shared by every replica. Nothing is cached: whichever replica took a snapshot,
 * any replica's next read sees it. Writes through a store bound to a fence (`fenced`) commit only
 * while that writer is still elected; each snapshot is announced on `isfr_snapshot`.
 */
export class PgSnapshotStore implements SnapshotStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly fence?: Fence,
  ) {}

  fenced(fence: Fence): PgSnapshotStore {
    return new PgSnapshotStore(this.pool, fence);
  }

  async save(s: Snapshot): Promise<void> {
    await fencedTransaction(this.pool, this.fence, async (c) => {
      const stored = await c.query(
        `INSERT INTO isfr_snapshots (ts_ms, published, rate, body) VALUES ($1, $2, $3, $4)
         ON CONFLICT (ts_ms) DO UPDATE SET published = excluded.published, rate = excluded.rate,
           body = excluded.body`,
        [s.tMs, s.rate !== null, s.rate, JSON.stringify(s)],
      );
      if (stored.rowCount === 1)
        await c.query("SELECT pg_notify($1, $2)", [ISFR_SNAPSHOT_CHANNEL, String(s.tMs)]);
    });
  }

  async latest(): Promise<Snapshot | undefined> {
    const { rows } = await this.pool.query<{ body: string }>(
      "SELECT body FROM isfr_snapshots ORDER BY ts_ms DESC LIMIT 1",
    );
    return rows[0] ? snapshotSchema.parse(JSON.parse(rows[0].body)) : undefined;
  }

  async publishedSince(sinceMs: number): Promise<Snapshot[]> {
    const { rows } = await this.pool.query<{ body: string }>(
      "SELECT body FROM isfr_snapshots WHERE published AND ts_ms >= $1 ORDER BY ts_ms",
      [sinceMs],
    );
    return rows.map((r) => JSON.parse(r.body) as Snapshot);
  }

  async ratesSince(sinceMs: number): Promise<{ tMs: number; rate: string }[]> {
    const { rows } = await this.pool.query<{ ts: string; rate: string }>(
      "SELECT ts_ms::text AS ts, rate FROM isfr_snapshots WHERE published AND ts_ms >= $1 ORDER BY ts_ms",
      [sinceMs],
    );
    return rows.map((r) => ({ tMs: Number(r.ts), rate: r.rate }));
  }

  async prune(beforeMs: number): Promise<void> {
    await fencedTransaction(this.pool, this.fence, (c) =>
      c.query("DELETE FROM isfr_snapshots WHERE ts_ms < $1", [beforeMs]),
    );
  }

  async saveSourceState(s: SourceState): Promise<void> {
    await fencedTransaction(this.pool, this.fence, (c) =>
      c.query(
        `INSERT INTO isfr_source_state (source_id, rate, observed_at_ms, last_attempt_ms, last_error)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (source_id) DO UPDATE SET rate = excluded.rate, observed_at_ms = excluded.observed_at_ms,
           last_attempt_ms = excluded.last_attempt_ms, last_error = excluded.last_error`,
        [s.sourceId, s.rate, s.observedAtMs, s.lastAttemptMs, s.lastError],
      ),
    );
  }

  async sourceStates(): Promise<SourceState[]> {
    const { rows } = await this.pool.query<{
      source_id: string;
      rate: string | null;
      observed_at_ms: string | null;
      last_attempt_ms: string;
      last_error: string | null;
    }>(
      `SELECT source_id, rate, observed_at_ms::text AS observed_at_ms, last_attempt_ms::text AS last_attempt_ms,
              last_error FROM isfr_source_state`,
    );
    return rows.map((r) => ({
      sourceId: r.source_id,
      rate: r.rate,
      observedAtMs: r.observed_at_ms === null ? null : Number(r.observed_at_ms),
      lastAttemptMs: Number(r.last_attempt_ms),
      lastError: r.last_error,
    }));
  }

  /** The pool belongs to whoever opened it. */
  async close(): Promise<void> {}
}
