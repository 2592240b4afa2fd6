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
     PRIMARY KEY (network, address)
   )`,
];

/** Columns added after the first schema, for files created before them. */
const ADDED_COLUMNS: readonly (readonly [string, string])[] = [["tracking", "TEXT"]];

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
export class AgentStore {
  private readonly db: Db;

  constructor(path: string) {
    this.db = openDb(path, SCHEMA);
    const present = new Set(
      (this.db.prepare("PRAGMA table_info(agents)").all() as { name: string }[]).map((c) => c.name),
    );
    for (const [name, type] of ADDED_COLUMNS) {
      if (!present.has(name)) this.db.exec(`ALTER TABLE agents ADD COLUMN ${name} ${type}`);
    }
  }

  get(network: LeaderboardNetwork, address: string): AgentRow | undefined {
    const r = this.db
      .prepare("SELECT * FROM agents WHERE network = ? AND address = ?")
      .get(network, address) as RawRow | undefined;
    return r ? fromRaw(r) : undefined;
  }

  /** Insert a new agent; false (and nothing changed) when it was already registered. */
  insert(a: {
    network: LeaderboardNetwork;
    address: string;
    displayName: string;
    initialAccountValue: string;
    registeredAt: number;
    ledgerMark: LedgerMark | null;
    positionsCount: number;
    tracking?: Tracking | null;
  }): boolean {
    const info = this.db
      .prepare(
        `INSERT INTO agents (network, address, display_name, initial_account_value, registered_at, ledger_mark,
           account_value, positions_count, refreshed_at, tracking)
         VALUES (@network, @address, @displayName, @initialAccountValue, @registeredAt, @ledgerMark,
           @initialAccountValue, @positionsCount, @registeredAt, @tracking)
         ON CONFLICT (network, address) DO NOTHING`,
      )
      .run({
        ...a,
        ledgerMark: a.ledgerMark ? JSON.stringify(a.ledgerMark) : null,
        tracking: a.tracking ? JSON.stringify(a.tracking) : null,
      });
    return info.changes === 1;
  }

  list(network: LeaderboardNetwork): AgentRow[] {
    return (this.db.prepare("SELECT * FROM agents WHERE network = ?").all(network) as RawRow[]).map(fromRaw);
  }

  count(network: LeaderboardNetwork): number {
    return (
      this.db.prepare("SELECT COUNT(*) AS n FROM agents WHERE network = ?").get(network) as { n: number }
    ).n;
  }

  recordSuccess(
    network: LeaderboardNetwork,
    address: string,
    v: {
      accountValue: string;
      positionsCount: number;
      netDeposits: string;
      at: number;
      tracking?: Tracking | null;
    },
  ): void {
    this.db
      .prepare(
        `UPDATE agents SET account_value = ?, positions_count = ?, net_deposits = ?, refreshed_at = ?, stale = 0,
           last_error = NULL, tracking = ? WHERE network = ? AND address = ?`,
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

  /** The query failed: keep the last known values, mark the agent stale. */
  recordFailure(network: LeaderboardNetwork, address: string, error: string): void {
    this.db
      .prepare("UPDATE agents SET stale = 1, last_error = ? WHERE network = ? AND address = ?")
      .run(error, network, address);
  }

  close(): void {
    this.db.close();
  }
}
