import type pg from "pg";
import { type Fence, fencedTransaction } from "../../db/leader.ts";
import type { FeedStore, SettledHour, StoredState } from "./store.ts";
import type { FeedTick } from "./tick.ts";

/** NOTIFY channel of stored ticks; the payload is `{feed, ts}` and readers fetch the tick itself. */
export const FEED_TICK_CHANNEL = "feed_tick";

export interface FeedTickNotice {
  feed: string;
  ts: number;
}

/**
 * The feeds in Postgres, shared by every replica. Reads are plain; writes made through a store
 * bound to a fence (`fenced`) commit only while that fence's writer is still elected, and each
 * stored tick is announced on `feed_tick` in the same transaction (delivered only if it commits).
 */
export class PgFeedStore implements FeedStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly fence?: Fence,
  ) {}

  /** The same store, writing as the holder of `fence`. */
  fenced(fence: Fence): PgFeedStore {
    return new PgFeedStore(this.pool, fence);
  }

  async inception(feed: string): Promise<number | undefined> {
    const { rows } = await this.pool.query<{ ms: string }>(
      "SELECT inception_ms::text AS ms FROM feed_meta WHERE feed = $1",
      [feed],
    );
    return rows[0] ? Number(rows[0].ms) : undefined;
  }

  async setInception(feed: string, ms: number): Promise<void> {
    await fencedTransaction(this.pool, this.fence, (c) =>
      c.query("INSERT INTO feed_meta (feed, inception_ms) VALUES ($1, $2)", [feed, ms]),
    );
  }

  async hours(feed: string): Promise<SettledHour[]> {
    const { rows } = await this.pool.query<{ hour_end_ms: string; rate: string }>(
      "SELECT hour_end_ms::text AS hour_end_ms, rate FROM feed_hours WHERE feed = $1 ORDER BY hour_end_ms",
      [feed],
    );
    return rows.map((r) => ({ hourEndMs: Number(r.hour_end_ms), rate: r.rate }));
  }

  async state(feed: string): Promise<StoredState | undefined> {
    const { rows } = await this.pool.query<{ cumulative: string; k: string; settled: string }>(
      "SELECT cumulative, k, settled_through_ms::text AS settled FROM feed_state WHERE feed = $1",
      [feed],
    );
    const r = rows[0];
    return r ? { cumulative: r.cumulative, k: r.k, settledThroughMs: Number(r.settled) } : undefined;
  }

  async addHours(feed: string, hours: readonly SettledHour[], state: StoredState): Promise<void> {
    await fencedTransaction(this.pool, this.fence, async (c) => {
      for (const h of hours) {
        await c.query(
          "INSERT INTO feed_hours (feed, hour_end_ms, rate) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
          [feed, h.hourEndMs, h.rate],
        );
      }
      await c.query(
        `INSERT INTO feed_state (feed, cumulative, k, settled_through_ms) VALUES ($1, $2, $3, $4)
         ON CONFLICT (feed) DO UPDATE SET cumulative = excluded.cumulative, k = excluded.k,
           settled_through_ms = excluded.settled_through_ms`,
        [feed, state.cumulative, state.k, state.settledThroughMs],
      );
    });
  }

  async addTick(tick: FeedTick): Promise<void> {
    const notice: FeedTickNotice = { feed: tick.feed, ts: tick.timestamp };
    await fencedTransaction(this.pool, this.fence, async (c) => {
      const stored = await c.query(
        "INSERT INTO feed_ticks (feed, ts, tick) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
        [tick.feed, tick.timestamp, JSON.stringify(tick)],
      );
      if (stored.rowCount === 1)
        await c.query("SELECT pg_notify($1, $2)", [FEED_TICK_CHANNEL, JSON.stringify(notice)]);
    });
  }

  async lastTick(feed: string): Promise<FeedTick | undefined> {
    const { rows } = await this.pool.query<{ tick: string }>(
      "SELECT tick FROM feed_ticks WHERE feed = $1 ORDER BY ts DESC LIMIT 1",
      [feed],
    );
    return rows[0] ? (JSON.parse(rows[0].tick) as FeedTick) : undefined;
  }

  async ticks(feed: string, fromMs: number, toMs: number, limit: number): Promise<FeedTick[]> {
    const { rows } = await this.pool.query<{ tick: string }>(
      "SELECT tick FROM feed_ticks WHERE feed = $1 AND ts >= $2 AND ts <= $3 ORDER BY ts LIMIT $4",
      [feed, fromMs, toMs, limit],
    );
    return rows.map((r) => JSON.parse(r.tick) as FeedTick);
  }

  /** The pool belongs to whoever opened it. */
  async close(): Promise<void> {}
}
