import { type Db, openDb } from "../../store/sqlite.ts";
import type { LeaderboardNetwork } from "./account-source.ts";
import type { LedgerMark } from "./ledger.ts";
import type { Tracking } from "./tracking.ts";

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS agents (
     network TEXT NOT NULL,
     address TEXT NOT NULL,
     display_name TEXT NOT NULL DEFAULT '',
     initial_account_value TEXT NOT NULL,
     registered_at INTEGER NOT NULL,
     ledger_mark TEXT,
     account_value TEXT NOT NULL,
     positions_count INTEGER NOT NULL DEFAULT 0,
     net_deposits TEXT NOT NULL DEFAULT '0',
     refreshed_at INTEGER,
     stale INTEGER NOT NULL DEFAULT 0,
     last_error TEXT,
     tracking TEXT,
     changed_seq INTEGER NOT NULL DEFAULT 0,
     PRIMARY KEY (network, address)
   )`,
];

/** Columns added after the first schema, for files created before them. */
const ADDED_COLUMNS: readonly (readonly [string, string])[] = [
  ["tracking", "TEXT"],
  ["changed_seq", "INTEGER NOT NULL DEFAULT 0"],
];

/** The next change number: writes are serialised by SQLite, so numbers follow commit order. */
const NEXT_SEQ = "(SELECT COALESCE(MAX(changed_seq), 0) + 1 FROM agents)";

/** A new registration: its baseline, which never changes afterwards. */
export interface NewAgent {
  network: LeaderboardNetwork;
  address: string;
  displayName: string;
  initialAccountValue: string;
  registeredAt: number;
  ledgerMark: LedgerMark | null;
  positionsCount: number;
  /** What the first refresh needs to skip requests (see tracking.ts); absent: one full read first. */
  tracking?: Tracking | null;
}

/** What one refresh learned about an agent. */
export interface AgentReading {
  accountValue: string;
  positionsCount: number;
  netDeposits: string;
  at: number;
  tracking?: Tracking | null;
}

/**
 * Where registered agents live: SQLite (LEADERBOARD_DB, one machine) or Postgres (DATABASE_URL,
 * shared by replicas). Money is passed as decimal strings both ways.
 */
export interface AgentStore {
  get(network: LeaderboardNetwork, address: string): Promise<AgentRow | undefined>;
  /** Insert a new agent; false (and nothing changed) when it was already registered. */
  insert(a: NewAgent): Promise<boolean>;
  list(network: LeaderboardNetwork): Promise<AgentRow[]>;
  count(network: LeaderboardNetwork): Promise<number>;
  recordSuccess(network: LeaderboardNetwork, address: string, v: AgentReading): Promise<void>;
  /** The query failed: keep the last known values, mark the agent stale. */
  recordFailure(network: LeaderboardNetwork, address: string, error: string): Promise<void>;
  /** Every agent of `network`, with the cursor to ask `changesSince` for what changes next. */
  snapshot(network: LeaderboardNetwork): Promise<AgentChanges>;
  /**
   * The agents of `network` registered or changed since `cursor` was handed out (some already seen
   * may come again), and the next cursor: a board follows the store by reading only these.
   */
  changesSince(network: LeaderboardNetwork, cursor: string): Promise<AgentChanges>;
  close(): Promise<void>;
}

/** Agents read from a store, and where the next read of changes starts. */
export interface AgentChanges {
  rows: AgentRow[];
  cursor: string;
}

/** A registered agent with its baseline (never changed) and its last known exchange values. */
export interface AgentRow {
  network: LeaderboardNetwork;
  address: string;
  displayName: string;
  initialAccountValue: string;
  registeredAt: number;
  ledgerMark: LedgerMark | null;
  accountValue: string;
  positionsCount: number;
  netDeposits: string;
  refreshedAt: number | null;
  stale: boolean;
  lastError: string | null;
  /** What the refresher remembers to skip requests; null until the first full refresh. */
  tracking: Tracking | null;
}

interface RawRow {
  network: LeaderboardNetwork;
  address: string;
  display_name: string;
  initial_account_value: string;
  registered_at: number;
  ledger_mark: string | null;
  account_value: string;
  positions_count: number;
  net_deposits: string;
  refreshed_at: number | null;
  stale: number;
  last_error: string | null;
  tracking: string | null;
}

function fromRaw(r: RawRow): AgentRow {
  return {
    network: r.network,
    address: r.address,
    displayName: r.display_name,
    initialAccountValue: r.initial_account_value,
    registeredAt: r.registered_at,
    ledgerMark: r.ledger_mark ? (JSON.parse(r.ledger_mark) as LedgerMark) : null,
    accountValue: r.account_value,
    positionsCount: r.positions_count,
    netDeposits: r.net_deposits,
    refreshedAt: r.refreshed_at,
    stale: r.stale === 1,
    lastError: r.last_error,
    tracking: r.tracking ? (JSON.parse(r.tracking) as Tracking) : null,
  };
}

/** Registered agents in SQLite (LEADERBOARD_DB); safe to share between the service and the CLI (WAL). */
export class SqliteAgentStore implements AgentStore {
  private readonly db: Db;

  constructor(path: string) {
    this.db = openDb(path, SCHEMA);
    const present = new Set(
      (this.db.prepare("PRAGMA table_info(agents)").all() as { name: string }[]).map((c) => c.name),
    );
    for (const [name, type] of ADDED_COLUMNS) {
      if (!present.has(name)) this.db.exec(`ALTER TABLE agents ADD COLUMN ${name} ${type}`);
    }
    this.db.exec("CREATE INDEX IF NOT EXISTS agents_by_change ON agents (changed_seq)");
  }

  async get(network: LeaderboardNetwork, address: string): Promise<AgentRow | undefined> {
    const r = this.db
      .prepare("SELECT * FROM agents WHERE network = ? AND address = ?")
      .get(network, address) as RawRow | undefined;
    return r ? fromRaw(r) : undefined;
  }

  async insert(a: NewAgent): Promise<boolean> {
    const info = this.db
      .prepare(
        `INSERT INTO agents (network, address, display_name, initial_account_value, registered_at, ledger_mark,
           account_value, positions_count, refreshed_at, tracking, changed_seq)
         VALUES (@network, @address, @displayName, @initialAccountValue, @registeredAt, @ledgerMark,
           @initialAccountValue, @positionsCount, @registeredAt, @tracking, ${NEXT_SEQ})
         ON CONFLICT (network, address) DO NOTHING`,
      )
      .run({
        ...a,
        ledgerMark: a.ledgerMark ? JSON.stringify(a.ledgerMark) : null,
        tracking: a.tracking ? JSON.stringify(a.tracking) : null,
      });
    return info.changes === 1;
  }

  async list(network: LeaderboardNetwork): Promise<AgentRow[]> {
    return (this.db.prepare("SELECT * FROM agents WHERE network = ?").all(network) as RawRow[]).map(fromRaw);
  }

  async count(network: LeaderboardNetwork): Promise<number> {
    return (
      this.db.prepare("SELECT COUNT(*) AS n FROM agents WHERE network = ?").get(network) as { n: number }
    ).n;
  }

  async recordSuccess(network: LeaderboardNetwork, address: string, v: AgentReading): Promise<void> {
    this.db
      .prepare(
        `UPDATE agents SET account_value = ?, positions_count = ?, net_deposits = ?, refreshed_at = ?, stale = 0,
           last_error = NULL, tracking = ?, changed_seq = ${NEXT_SEQ} WHERE network = ? AND address = ?`,
      )
      .run(
        v.accountValue,
        v.positionsCount,
        v.netDeposits,
        v.at,
        v.tracking ? JSON.stringify(v.tracking) : null,
        network,
        address,
      );
  }

  async recordFailure(network: LeaderboardNetwork, address: string, error: string): Promise<void> {
    this.db
      .prepare(
        `UPDATE agents SET stale = 1, last_error = ?, changed_seq = ${NEXT_SEQ} WHERE network = ? AND address = ?`,
      )
      .run(error, network, address);
  }

  async snapshot(network: LeaderboardNetwork): Promise<AgentChanges> {
    return this.db.transaction(() => ({
      rows: (this.db.prepare("SELECT * FROM agents WHERE network = ?").all(network) as RawRow[]).map(fromRaw),
      cursor: String(this.lastSeq()),
    }))();
  }

  async changesSince(network: LeaderboardNetwork, cursor: string): Promise<AgentChanges> {
    return this.db.transaction(() => ({
      rows: (
        this.db
          .prepare("SELECT * FROM agents WHERE network = ? AND changed_seq > ?")
          .all(network, Number(cursor)) as RawRow[]
      ).map(fromRaw),
      cursor: String(this.lastSeq()),
    }))();
  }

  private lastSeq(): number {
    return (this.db.prepare("SELECT COALESCE(MAX(changed_seq), 0) AS n FROM agents").get() as { n: number })
      .n;
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
