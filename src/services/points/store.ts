import { type Db, openDb } from "../../store/sqlite.ts";

/** One BTCSWP oracle tick as the points service keeps it. */
export interface StoredMark {
  ts: number;
  px: string;
}

/** One fill of the scored coin as stored for a wallet (decimal strings, trade id unique per wallet). */
export interface StoredFill {
  tid: number;
  time: number;
  side: "B" | "A";
  px: string;
  sz: string;
  crossed: boolean;
  builderFee: string | null;
}

/** How far a wallet's fills have been read, and where a gap in them (if any) ends. */
export interface WalletSync {
  throughMs: number;
  /** 0 or null: no gap. */
  missingBeforeMs: number | null;
}

/** Where the scorer finds the oracle mark at a fill's time. */
export interface MarkLookup {
  /**
   * For each time, the last stored mark at or before it, if it is at most `toleranceMs` old; else
   * null. One answer per time, in order.
   */
  marksAt(times: readonly number[], toleranceMs: number): Promise<(string | null)[]>;
}

/**
 * What the points service keeps: every BTCSWP mark it has seen and every wallet's fill history.
 * SQLite (POINTS_DB, one machine) or Postgres (DATABASE_URL, shared by replicas).
 */
export interface PointsStore extends MarkLookup {
  /** Store marks; a timestamp stored again takes the newer price. */
  addMarks(marks: readonly StoredMark[]): Promise<void>;
  lastMarkTs(): Promise<number | undefined>;
  walletSync(wallet: string): Promise<WalletSync | undefined>;
  /**
   * In one transaction: store the fills not stored yet and advance the wallet's sync state (never
   * backwards; a gap once found is kept). Returns how many fills were new.
   */
  recordSync(
    wallet: string,
    fills: readonly StoredFill[],
    throughMs: number,
    missingBeforeMs: number | null,
  ): Promise<number>;
  /**
   * Run `sync` (fetch a wallet's new fills and record them) while no other process syncs that
   * wallet, unless one finished a sync of it less than `freshMs` ago: then `sync` is skipped and
   * the result is false. Replicas thereby fetch a wallet once however many of them are asked.
   */
  exclusiveSync(wallet: string, freshMs: number, sync: () => Promise<void>): Promise<boolean>;
  /** The wallet's stored fills since `fromMs`, by time then trade id. */
  fillsSince(wallet: string, fromMs: number): Promise<StoredFill[]>;
  /** Wallets synced at least once, sorted. */
  knownWallets(): Promise<string[]>;
  close(): Promise<void>;
}

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS marks (ts INTEGER PRIMARY KEY, px TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS wallet_fills (
     user TEXT NOT NULL,
     tid INTEGER NOT NULL,
     time INTEGER NOT NULL,
     side TEXT NOT NULL,
     px TEXT NOT NULL,
     sz TEXT NOT NULL,
     crossed INTEGER NOT NULL,
     builder_fee TEXT,
     PRIMARY KEY (user, tid)
   )`,
  `CREATE INDEX IF NOT EXISTS wallet_fills_by_time ON wallet_fills (user, time)`,
  `CREATE TABLE IF NOT EXISTS wallet_sync (
     user TEXT PRIMARY KEY,
     through_ms INTEGER NOT NULL,
     missing_before_ms INTEGER
   )`,
];

interface FillRow {
  tid: number;
  time: number;
  side: "B" | "A";
  px: string;
  sz: string;
  crossed: number;
  builder_fee: string | null;
}

/** The points store in one SQLite file (POINTS_DB). */
export class SqlitePointsStore implements PointsStore {
  private readonly db: Db;
  private readonly insertMark;
  private readonly markBefore;
  private readonly newestMark;
  private readonly insertFill;
  private readonly selectFills;
  private readonly syncOf;
  private readonly saveSync;
  private readonly wallets;

  constructor(path: string) {
    this.db = openDb(path, SCHEMA);
    const db = this.db;
    this.insertMark = db.prepare("INSERT OR REPLACE INTO marks (ts, px) VALUES (?, ?)");
    this.markBefore = db.prepare("SELECT ts, px FROM marks WHERE ts <= ? ORDER BY ts DESC LIMIT 1");
    this.newestMark = db.prepare("SELECT MAX(ts) AS ts FROM marks");
    this.insertFill = db.prepare(
      `INSERT OR IGNORE INTO wallet_fills (user, tid, time, side, px, sz, crossed, builder_fee)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.selectFills = db.prepare(
      "SELECT tid, time, side, px, sz, crossed, builder_fee FROM wallet_fills WHERE user = ? AND time >= ? ORDER BY time, tid",
    );
    this.syncOf = db.prepare("SELECT through_ms, missing_before_ms FROM wallet_sync WHERE user = ?");
    this.saveSync = db.prepare(
      `INSERT INTO wallet_sync (user, through_ms, missing_before_ms) VALUES (?, ?, ?)
       ON CONFLICT (user) DO UPDATE SET through_ms = MAX(through_ms, excluded.through_ms),
         missing_before_ms = MAX(COALESCE(missing_before_ms, 0), COALESCE(excluded.missing_before_ms, 0))`,
    );
    this.wallets = db.prepare("SELECT user FROM wallet_sync ORDER BY user");
  }

  async addMarks(marks: readonly StoredMark[]): Promise<void> {
    this.db.transaction(() => {
      for (const m of marks) this.insertMark.run(m.ts, m.px);
    })();
  }

  async lastMarkTs(): Promise<number | undefined> {
    return (this.newestMark.get() as { ts: number | null }).ts ?? undefined;
  }

  async marksAt(times: readonly number[], toleranceMs: number): Promise<(string | null)[]> {
    return times.map((t) => {
      const row = this.markBefore.get(t) as { ts: number; px: string } | undefined;
      return row && t - row.ts <= toleranceMs ? row.px : null;
    });
  }

  async walletSync(wallet: string): Promise<WalletSync | undefined> {
    const row = this.syncOf.get(wallet) as
      | { through_ms: number; missing_before_ms: number | null }
      | undefined;
    return row && { throughMs: row.through_ms, missingBeforeMs: row.missing_before_ms };
  }

  async recordSync(
    wallet: string,
    fills: readonly StoredFill[],
    throughMs: number,
    missingBeforeMs: number | null,
  ): Promise<number> {
    let added = 0;
    this.db.transaction(() => {
      for (const f of fills) {
        added += this.insertFill.run(
          wallet,
          f.tid,
          f.time,
          f.side,
          f.px,
          f.sz,
          f.crossed ? 1 : 0,
          f.builderFee,
        ).changes;
      }
      this.saveSync.run(wallet, throughMs, missingBeforeMs);
    })();
    return added;
  }

  /** One process owns the file: the service already shares one computation per wallet. */
  async exclusiveSync(_wallet: string, _freshMs: number, sync: () => Promise<void>): Promise<boolean> {
    await sync();
    return true;
  }

  async fillsSince(wallet: string, fromMs: number): Promise<StoredFill[]> {
    return (this.selectFills.all(wallet, fromMs) as FillRow[]).map((r) => ({
      tid: r.tid,
      time: r.time,
      side: r.side,
      px: r.px,
      sz: r.sz,
      crossed: r.crossed === 1,
      builderFee: r.builder_fee,
    }));
  }

  async knownWallets(): Promise<string[]> {
    return (this.wallets.all() as { user: string }[]).map((r) => r.user);
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
