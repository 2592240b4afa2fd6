import { applySchema, type Db } from "../../store/sqlite.ts";
import type { WalletFill } from "./attribution.ts";

/** Hyperliquid serves only a user's most recent 10,000 fills, whatever the time window asked for. */
export const EXCHANGE_FILL_WINDOW = 10_000;

/** A fill as the exchange reports it, with its trade id (unique per user and fill). */
export type SourceFill = WalletFill & { crossed: boolean; tid: number };

/** What a wallet's fill history can vouch for. */
export interface HistoryCoverage {
  /** True when every fill since the program start was seen. */
  complete: boolean;
  /** When incomplete: fills before this time (ms) may be missing. */
  missingBeforeMs: number | null;
}

/** Wallets whose stored fills are kept in memory between syncs. */
const RECENT_WALLETS = 2_000;

const SCHEMA = [
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

interface SyncRow {
  through_ms: number;
  missing_before_ms: number | null;
}

/**
 * Every fill of the scored coin the points service has seen, per wallet, in SQLite. Each sync asks
 * the exchange only for fills since the last one seen, so a wallet followed often enough keeps its
 * whole history even after it has traded far past the exchange's 10,000-fill window; when a sync
 * finds that window overflowed, the gap is recorded and reported instead of silently scored as zero.
 */
export class FillHistory {
  private readonly insert;
  private readonly select;
  private readonly syncOf;
  private readonly saveSync;
  private readonly users;
  /** Recently scored wallets' stored fills, reused while a sync adds nothing (most requests). */
  private readonly recent = new Map<string, { fromMs: number; fills: SourceFill[] }>();

  constructor(
    private readonly db: Db,
    private readonly coin: string,
  ) {
    applySchema(db, SCHEMA);
    this.insert = db.prepare(
      `INSERT OR IGNORE INTO wallet_fills (user, tid, time, side, px, sz, crossed, builder_fee)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.select = db.prepare(
      "SELECT tid, time, side, px, sz, crossed, builder_fee FROM wallet_fills WHERE user = ? AND time >= ? ORDER BY time, tid",
    );
    this.syncOf = db.prepare("SELECT through_ms, missing_before_ms FROM wallet_sync WHERE user = ?");
    this.saveSync = db.prepare(
      `INSERT INTO wallet_sync (user, through_ms, missing_before_ms) VALUES (?, ?, ?)
       ON CONFLICT (user) DO UPDATE SET through_ms = MAX(through_ms, excluded.through_ms),
         missing_before_ms = MAX(COALESCE(missing_before_ms, 0), COALESCE(excluded.missing_before_ms, 0))`,
    );
    this.users = db.prepare("SELECT user FROM wallet_sync ORDER BY user");
  }

  /**
   * Fetch what is new for `user` (from the last fill seen, else the program start), store the scored
   * coin's fills, and return every stored fill since the program start with the coverage.
   */
  async sync(
    user: string,
    fetch: (user: string, startMs: number) => Promise<SourceFill[]>,
    programStartMs: number,
  ): Promise<{ fills: SourceFill[]; coverage: HistoryCoverage }> {
    const key = user.toLowerCase();
    const before = this.syncOf.get(key) as SyncRow | undefined;
    const fromMs = Math.max(before?.through_ms ?? programStartMs, programStartMs);
    const fetched = await fetch(key, fromMs);
    let oldest = Number.POSITIVE_INFINITY;
    let newest = fromMs;
    for (const f of fetched) {
      if (f.time < oldest) oldest = f.time;
      if (f.time > newest) newest = f.time;
    }
    // A full window that starts after `fromMs` means older fills fell out of the exchange's reach.
    const gap = fetched.length >= EXCHANGE_FILL_WINDOW && oldest > fromMs ? oldest : null;
    let added = 0;
    this.db.transaction(() => {
      for (const f of fetched) {
        if (f.coin !== this.coin) continue;
        const r = this.insert.run(
          key,
          f.tid,
          f.time,
          f.side,
          f.px,
          f.sz,
          f.crossed ? 1 : 0,
          f.builderFee ?? null,
        );
        added += r.changes;
      }
      this.saveSync.run(key, newest, gap);
    })();
    const after = this.syncOf.get(key) as SyncRow;
    const missingBeforeMs =
      after.missing_before_ms && after.missing_before_ms > 0 ? after.missing_before_ms : null;
    return {
      fills: this.fillsOf(key, programStartMs, added > 0),
      coverage: { complete: missingBeforeMs === null, missingBeforeMs },
    };
  }

  /** The stored fills of `user` since `fromMs`: from memory when nothing was added since the last read. */
  private fillsOf(user: string, fromMs: number, changed: boolean): SourceFill[] {
    const hit = this.recent.get(user);
    this.recent.delete(user); // set again below: the map's first key is the least recently used
    const fills = hit && hit.fromMs === fromMs && !changed ? hit.fills : this.stored(user, fromMs);
    this.recent.set(user, { fromMs, fills });
    if (this.recent.size > RECENT_WALLETS) {
      const oldest = this.recent.keys().next().value;
      if (oldest !== undefined) this.recent.delete(oldest);
    }
    return fills;
  }

  /** Wallets synced at least once (the ones worth following). */
  knownUsers(): string[] {
    return (this.users.all() as { user: string }[]).map((r) => r.user);
  }

  private stored(user: string, fromMs: number): SourceFill[] {
    return (this.select.all(user, fromMs) as FillRow[]).map((r) => ({
      tid: r.tid,
      time: r.time,
      coin: this.coin,
      side: r.side,
      px: r.px,
      sz: r.sz,
      crossed: r.crossed === 1,
      ...(r.builder_fee !== null ? { builderFee: r.builder_fee } : {}),
    }));
  }
}
