import { z } from "zod";
import { type Db, openDb } from "../../store/sqlite.ts";
import { RATE_CLASSES } from "./methodology.ts";

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS snapshots (
     ts_ms INTEGER PRIMARY KEY,
     published INTEGER NOT NULL,
     rate TEXT,
     body TEXT NOT NULL
   )`,
  `CREATE TABLE IF NOT EXISTS source_state (
     source_id TEXT PRIMARY KEY,
     rate TEXT,
     observed_at_ms INTEGER,
     last_attempt_ms INTEGER NOT NULL,
     last_error TEXT
   )`,
];

const decimalString = z.string().regex(/^-?\d+(\.\d+)?$/);
const classMap = <T extends z.ZodType>(v: T) =>
  z.object(Object.fromEntries(RATE_CLASSES.map((c) => [c, v])) as Record<(typeof RATE_CLASSES)[number], T>);

/** One snapshot as stored (decimal strings, so history is exact). `rate` is null when nothing was fresh. */
export const snapshotSchema = z.object({
  tMs: z.number().int(),
  version: z.string(),
  rate: decimalString.nullable(),
  base: decimalString.nullable(),
  deriv: decimalString.nullable(),
  fallback: z.enum(["none", "no_lending", "no_derivatives"]).nullable(),
  components: classMap(decimalString.nullable()),
  weights: classMap(decimalString),
  coverage: decimalString,
  agreement: decimalString,
  confidence: decimalString,
  reason: z.string().nullable(),
  sources: z.array(
    z.object({
      id: z.string(),
      class: z.enum(RATE_CLASSES),
      weight: decimalString,
      nominalWeight: decimalString,
      status: z.enum(["fresh", "stale", "missing"]),
      rate: decimalString.nullable(),
      observedAtMs: z.number().int().nullable(),
    }),
  ),
});
export type Snapshot = z.infer<typeof snapshotSchema>;

export interface SourceState {
  sourceId: string;
  rate: string | null;
  observedAtMs: number | null;
  lastAttemptMs: number;
  lastError: string | null;
}

/**
 * ISFR snapshots and the last reading of every source: SQLite (ISFR_DB) on one machine, Postgres
 * (shared by replicas) when DATABASE_URL is set.
 */
export interface SnapshotStore {
  /** Store a snapshot; a second snapshot at the same millisecond replaces the first. */
  save(s: Snapshot): Promise<void>;
  /** The most recent snapshot, published or not. */
  latest(): Promise<Snapshot | undefined>;
  /** Published snapshots at or after `sinceMs`, oldest first. */
  publishedSince(sinceMs: number): Promise<Snapshot[]>;
  /** Just (time, rate) of published snapshots since `sinceMs`, oldest first: what candles need. */
  ratesSince(sinceMs: number): Promise<{ tMs: number; rate: string }[]>;
  /** Drop snapshots older than `beforeMs` (history is served for at most a year). */
  prune(beforeMs: number): Promise<void>;
  saveSourceState(s: SourceState): Promise<void>;
  sourceStates(): Promise<SourceState[]>;
  close(): Promise<void>;
}

/** The SQLite store: one process owns the file, so it may keep the latest snapshot in memory. */
export class SqliteSnapshotStore implements SnapshotStore {
  private readonly db: Db;
  private latestCache: Snapshot | undefined;

  constructor(path: string) {
    this.db = openDb(path, SCHEMA);
  }

  async save(s: Snapshot): Promise<void> {
    this.db
      .prepare("INSERT OR REPLACE INTO snapshots (ts_ms, published, rate, body) VALUES (?, ?, ?, ?)")
      .run(s.tMs, s.rate === null ? 0 : 1, s.rate, JSON.stringify(s));
    if (!this.latestCache || s.tMs >= this.latestCache.tMs) this.latestCache = s;
  }

  async latest(): Promise<Snapshot | undefined> {
    if (this.latestCache) return this.latestCache;
    const row = this.db.prepare("SELECT body FROM snapshots ORDER BY ts_ms DESC LIMIT 1").get() as
      | { body: string }
      | undefined;
    this.latestCache = row ? snapshotSchema.parse(JSON.parse(row.body)) : undefined;
    return this.latestCache;
  }

  async publishedSince(sinceMs: number): Promise<Snapshot[]> {
    const rows = this.db
      .prepare("SELECT body FROM snapshots WHERE published = 1 AND ts_ms >= ? ORDER BY ts_ms")
      .all(sinceMs) as { body: string }[];
    return rows.map((r) => JSON.parse(r.body) as Snapshot);
  }

  async ratesSince(sinceMs: number): Promise<{ tMs: number; rate: string }[]> {
    return this.db
      .prepare("SELECT ts_ms AS tMs, rate FROM snapshots WHERE published = 1 AND ts_ms >= ? ORDER BY ts_ms")
      .all(sinceMs) as { tMs: number; rate: string }[];
  }

  async prune(beforeMs: number): Promise<void> {
    this.db.prepare("DELETE FROM snapshots WHERE ts_ms < ?").run(beforeMs);
  }

  async saveSourceState(s: SourceState): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO source_state (source_id, rate, observed_at_ms, last_attempt_ms, last_error)
         VALUES (@sourceId, @rate, @observedAtMs, @lastAttemptMs, @lastError)
         ON CONFLICT(source_id) DO UPDATE SET rate = excluded.rate, observed_at_ms = excluded.observed_at_ms,
           last_attempt_ms = excluded.last_attempt_ms, last_error = excluded.last_error`,
      )
      .run(s);
  }

  async sourceStates(): Promise<SourceState[]> {
    const rows = this.db.prepare("SELECT * FROM source_state").all() as {
      source_id: string;
      rate: string | null;
      observed_at_ms: number | null;
      last_attempt_ms: number;
      last_error: string | null;
    }[];
    return rows.map((r) => ({
      sourceId: r.source_id,
      rate: r.rate,
      observedAtMs: r.observed_at_ms,
      lastAttemptMs: r.last_attempt_ms,
      lastError: r.last_error,
    }));
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
