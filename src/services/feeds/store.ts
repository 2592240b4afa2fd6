import { type Db, openDb } from "../../store/sqlite.ts";
import type { FeedTick } from "./tick.ts";

/** The settled index as last saved: Σ excess, the fixed leg, and the end of the last settled hour. */
export interface StoredState {
  cumulative: string;
  k: string;
  settledThroughMs: number;
}

export interface SettledHour {
  hourEndMs: number;
  rate: string;
}

/**
 * Persistence of the feeds: each feed's inception, every settled hour (the replay log the index is
 * rebuilt from), and every published tick (the history the points service reads). SQLite by
 * default; Postgres (shared by replicas) when DATABASE_URL is set.
 */
export interface FeedStore {
  inception(feed: string): Promise<number | undefined>;
  setInception(feed: string, ms: number): Promise<void>;
  hours(feed: string): Promise<SettledHour[]>;
  state(feed: string): Promise<StoredState | undefined>;
  /** Record newly settled hours and the state they lead to, atomically. */
  addHours(feed: string, hours: readonly SettledHour[], state: StoredState): Promise<void>;
  /** Store a published tick; a second tick for the same feed and millisecond is ignored. */
  addTick(tick: FeedTick): Promise<void>;
  lastTick(feed: string): Promise<FeedTick | undefined>;
  /** Ticks with fromMs ≤ ts ≤ toMs, oldest first, at most `limit`. */
  ticks(feed: string, fromMs: number, toMs: number, limit: number): Promise<FeedTick[]>;
  close(): Promise<void>;
}

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS feed_meta (feed TEXT PRIMARY KEY, inception_ms INTEGER NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS feed_state (
     feed TEXT PRIMARY KEY, cumulative TEXT NOT NULL, k TEXT NOT NULL, settled_through_ms INTEGER NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS feed_hours (
     feed TEXT NOT NULL, hour_end_ms INTEGER NOT NULL, rate TEXT NOT NULL,
     PRIMARY KEY (feed, hour_end_ms))`,
  `CREATE TABLE IF NOT EXISTS feed_ticks (
     feed TEXT NOT NULL, ts INTEGER NOT NULL, tick TEXT NOT NULL,
     PRIMARY KEY (feed, ts))`,
];

/** The feeds in one SQLite file (FEEDS_DB): the single-machine default. */
export class SqliteFeedStore implements FeedStore {
  private readonly db: Db;

  constructor(path: string) {
    this.db = openDb(path, SCHEMA);
  }

  async inception(feed: string): Promise<number | undefined> {
    const row = this.db.prepare("SELECT inception_ms AS ms FROM feed_meta WHERE feed = ?").get(feed) as
      | { ms: number }
      | undefined;
    return row?.ms;
  }

  async setInception(feed: string, ms: number): Promise<void> {
    this.db.prepare("INSERT INTO feed_meta (feed, inception_ms) VALUES (?, ?)").run(feed, ms);
  }

  async hours(feed: string): Promise<SettledHour[]> {
    return this.db
      .prepare("SELECT hour_end_ms AS hourEndMs, rate FROM feed_hours WHERE feed = ? ORDER BY hour_end_ms")
      .all(feed) as SettledHour[];
  }

  async state(feed: string): Promise<StoredState | undefined> {
    return this.db
      .prepare("SELECT cumulative, k, settled_through_ms AS settledThroughMs FROM feed_state WHERE feed = ?")
      .get(feed) as StoredState | undefined;
  }

  async addHours(feed: string, hours: readonly SettledHour[], state: StoredState): Promise<void> {
    const insert = this.db.prepare(
      "INSERT OR IGNORE INTO feed_hours (feed, hour_end_ms, rate) VALUES (?, ?, ?)",
    );
    const save = this.db.prepare(
      "INSERT OR REPLACE INTO feed_state (feed, cumulative, k, settled_through_ms) VALUES (?, ?, ?, ?)",
    );
    this.db.transaction(() => {
      for (const h of hours) insert.run(feed, h.hourEndMs, h.rate);
      save.run(feed, state.cumulative, state.k, state.settledThroughMs);
    })();
  }

  async addTick(tick: FeedTick): Promise<void> {
    this.db
      .prepare("INSERT OR IGNORE INTO feed_ticks (feed, ts, tick) VALUES (?, ?, ?)")
      .run(tick.feed, tick.timestamp, JSON.stringify(tick));
  }

  async lastTick(feed: string): Promise<FeedTick | undefined> {
    const row = this.db
      .prepare("SELECT tick FROM feed_ticks WHERE feed = ? ORDER BY ts DESC LIMIT 1")
      .get(feed) as { tick: string } | undefined;
    return row ? (JSON.parse(row.tick) as FeedTick) : undefined;
  }

  async ticks(feed: string, fromMs: number, toMs: number, limit: number): Promise<FeedTick[]> {
    const rows = this.db
      .prepare("SELECT tick FROM feed_ticks WHERE feed = ? AND ts >= ? AND ts <= ? ORDER BY ts LIMIT ?")
      .all(feed, fromMs, toMs, limit) as { tick: string }[];
    return rows.map((r) => JSON.parse(r.tick) as FeedTick);
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
