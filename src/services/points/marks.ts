import { applySchema, type Db } from "../../store/sqlite.ts";
import { type SseSubscription, subscribeSse } from "../feeds/sse-client.ts";
import { historyPageSchema, parseTickData } from "../feeds/tick.ts";

const MARKS_SCHEMA = [`CREATE TABLE IF NOT EXISTS marks (ts INTEGER PRIMARY KEY, px TEXT NOT NULL)`];

/** Where the scorer finds the oracle mark at a fill's time. */
export interface MarkLookup {
  /** The last stored mark at or before `timeMs`, if it is at most `toleranceMs` old; else null. */
  markAt(timeMs: number, toleranceMs: number): string | null;
}

/** Every BTCSWP tick the points service has seen, in SQLite. */
export class MarkStore implements MarkLookup {
  private readonly insert;
  private readonly before;
  private readonly newest;

  constructor(db: Db) {
    applySchema(db, MARKS_SCHEMA);
    this.insert = db.prepare("INSERT OR REPLACE INTO marks (ts, px) VALUES (?, ?)");
    this.before = db.prepare("SELECT ts, px FROM marks WHERE ts <= ? ORDER BY ts DESC LIMIT 1");
    this.newest = db.prepare("SELECT MAX(ts) AS ts FROM marks");
  }

  add(ts: number, px: string): void {
    this.insert.run(ts, px);
  }

  lastTs(): number | undefined {
    const row = this.newest.get() as { ts: number | null };
    return row.ts ?? undefined;
  }

  markAt(timeMs: number, toleranceMs: number): string | null {
    const row = this.before.get(timeMs) as { ts: number; px: string } | undefined;
    if (!row || timeMs - row.ts > toleranceMs) return null;
    return row.px;
  }
}

export interface MarkRecorderOptions {
  /** The BTCSWP feed: its origin (`http://host:8101`) or its place on a proxy (`http://host:8100/api/feeds/btcswp`). */
  feedUrl: string;
  /** Backfill starts here when nothing is stored yet. */
  fromMs: number;
  onError?: (err: unknown) => void;
}

/**
 * Keeps the mark store complete: subscribes to the feed's SSE stream and, on every (re)connection,
 * backfills the gap since the newest stored mark from the feed's history.
 */
export class MarkRecorder {
  private sub: SseSubscription | undefined;
  private backfilling: Promise<void> | undefined;

  constructor(
    private readonly store: MarkStore,
    private readonly opts: MarkRecorderOptions,
  ) {}

  /** `stream` or `history` URL of the feed, on an origin or behind the proxy. */
  private url(kind: "stream" | "history"): string {
    const base = this.opts.feedUrl.replace(/\/+$/, "");
    return /\/api\/feeds\/[a-z]+$/.test(base) ? `${base}/${kind}` : `${base}/api/${kind}`;
  }

  start(): void {
    this.sub = subscribeSse(this.url("stream"), {
      onOpen: () => {
        // Not awaited: live ticks keep flowing while the gap is filled (inserts are idempotent).
        this.backfilling = this.backfill().catch((err) => this.opts.onError?.(err));
      },
      onEvent: (event, data) => {
        const tick = event === "price" ? parseTickData(data) : null;
        if (tick) this.store.add(tick.timestamp, tick.oracle_px);
      },
      onError: (err) => this.opts.onError?.(err),
    });
  }

  get connected(): boolean {
    return this.sub?.connected ?? false;
  }

  /** Resolves when the latest backfill finished (for tests and orderly starts). */
  async settled(): Promise<void> {
    await this.backfilling;
  }

  /** Page the feed's history from the newest stored mark (or the program start) to now. */
  async backfill(): Promise<void> {
    let from = this.store.lastTs() ?? this.opts.fromMs;
    for (let page = 0; page < 10_000; page++) {
      const res = await fetch(`${this.url("history")}?from=${from}&limit=5000`, {
        signal: AbortSignal.timeout(10_000),
      });
      if (!res.ok) throw new Error(`feed history answered ${res.status}`);
      const body = historyPageSchema.parse(await res.json());
      for (const t of body.ticks) this.store.add(t.timestamp, t.oracle_px);
      if (body.next_from === null) return;
      from = body.next_from;
    }
  }

  close(): void {
    this.sub?.close();
  }
}
