import { closeSync, fstatSync, mkdirSync, openSync, readSync } from "node:fs";
import { dirname, join } from "node:path";
import { appendLines } from "../store/append.ts";
import { type Db, openDb, openDbReadOnly } from "../store/sqlite.ts";

/**
 * `$DATA_DIR/cli/state.db`: SQLite table `kv(key TEXT PRIMARY KEY, value TEXT)`, every value JSON
 * text, all keys rewritten at the end of every tick in one transaction. Decimals are strings.
 *
 *   tick_count     integer — ticks completed, cumulative across resumed runs
 *   start_time_ms  integer — when the first run of this state started (kept on resume)
 *   strategy_id    string  — canonical id ("llm_agent" for the claude_agent alias)
 *   instrument     string  — canonical instrument ("ETH-PERP", "VXX-USDYP")
 *   positions      {"house": {<instrument>: Position}, "agents": {<strategy_id>: {<instrument>: Position}}}
 *                  Position = {instrument, net_qty, avg_entry_price, realized_pnl, fees_paid,
 *                  unrealized_pnl, mark_price, notional, total_buy_qty, total_sell_qty, num_fills}
 *                  (realized_pnl gross of fees; unrealized_pnl marked to mid every tick)
 *   risk           {"limits": {max_position_qty, max_notional_usd, max_order_size, price_band_bps,
 *                  max_drawdown_usd, daily_loss_usd, hard_stop_mult, capital_usd} (numbers),
 *                  "state": {high_water, day, day_start_pnl, drawdown, daily_pnl (decimal strings),
 *                  reduce_only, reasons[], halted, halt_reason}}
 *   order_stats    {"total_placed", "total_filled", "total_cancelled", "total_rejected" (integers,
 *                  cumulative across resumes), "fill_cursor": {"time_ms", "ids"[]} (fills already
 *                  applied, so a restart neither loses nor double-counts one)}
 *   run            {"status": "running"|"stopped"|"halted", "pid", "heartbeat_ms", "mode",
 *                  "network", "tick_interval_s", "params", "halt_reason"} — liveness for readers
 */
const KV_SCHEMA = ["CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT)"];

/** The engine's state: every key's JSON text (see above). */
export interface KvStore {
  readAll(): Record<string, string>;
  save(entries: Record<string, unknown>): void;
  close(): void;
}

/** The engine's journal of applied fills. */
export interface FillJournal {
  fillIdsSince(sinceMs: number): Set<string>;
  append(records: readonly TradeRecord[]): void;
}

export class StateStore implements KvStore {
  private readonly db: Db;

  constructor(readonly path: string) {
    this.db = openDb(path, KV_SCHEMA);
  }

  static inDir(dir: string): StateStore {
    return new StateStore(join(dir, "state.db"));
  }

  readAll(): Record<string, string> {
    const rows = this.db.prepare("SELECT key, value FROM kv").all() as { key: string; value: string }[];
    return Object.fromEntries(rows.map((r) => [r.key, r.value]));
  }

  /** Writes every entry (JSON-encoded) in one transaction. */
  save(entries: Record<string, unknown>): void {
    const upsert = this.db.prepare(
      "INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    );
    this.db.transaction(() => {
      for (const [k, v] of Object.entries(entries)) upsert.run(k, JSON.stringify(v));
    })();
  }

  close(): void {
    this.db.close();
  }
}

/** Reads a kv file read-only, without keeping it open (status readers never change the file). */
export function readKvFile(path: string): Record<string, string> {
  const db = openDbReadOnly(path);
  try {
    const rows = db.prepare("SELECT key, value FROM kv").all() as { key: string; value: string }[];
    return Object.fromEntries(rows.map((r) => [r.key, r.value]));
  } finally {
    db.close();
  }
}

/** One fill per line in `trades.jsonl` (the contract's fields; money as decimal strings). */
export interface TradeRecord {
  tick: number;
  oid: string;
  instrument: string;
  side: "buy" | "sell";
  price: string;
  quantity: string;
  timestamp_ms: number;
  fee: string;
  strategy: string;
  cloid?: string;
  /** The exchange's trade id of the fill: lets a restart tell which fills the log already holds. */
  fill_id?: string;
}

export class TradeLog implements FillJournal {
  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
  }

  /**
   * Fill ids of the records at or after `sinceMs` in the log's tail. After a crash between appending
   * fills and saving the fill cursor, the restarted engine fetches those fills again: these ids keep
   * them from being logged twice.
   */
  fillIdsSince(sinceMs: number, tailBytes = 4 * 1024 * 1024): Set<string> {
    const ids = new Set<string>();
    let text: string;
    try {
      const fd = openSync(this.path, "r");
      try {
        const size = fstatSync(fd).size;
        const start = Math.max(0, size - tailBytes);
        const buf = Buffer.alloc(size - start);
        readSync(fd, buf, 0, buf.length, start);
        text = buf.toString("utf8");
      } finally {
        closeSync(fd);
      }
    } catch {
      return ids; // no log yet
    }
    for (const line of text.split("\n")) {
      if (!line.includes("fill_id")) continue;
      try {
        const r = JSON.parse(line) as Partial<TradeRecord>;
        if (typeof r.fill_id === "string" && (r.timestamp_ms ?? 0) >= sinceMs) ids.add(r.fill_id);
      } catch {
        // a torn line or the cut at the start of the tail
      }
    }
    return ids;
  }

  append(records: readonly TradeRecord[]): void {
    appendLines(
      this.path,
      records.map((r) => JSON.stringify(r)),
    );
  }
}
