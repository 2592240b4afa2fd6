import { randomUUID } from "node:crypto";
import { connectMigrated } from "../../db/connect.ts";
import { type Fence, fencedTransaction } from "../../db/leader.ts";
import { asLog, type LogSink } from "../../db/log.ts";
import type { Pool } from "../../db/pool.ts";
import { StoreHealth } from "../../db/store-health.ts";
import type { LeaderboardNetwork } from "./account-source.ts";
import type { LedgerMark } from "./ledger.ts";
import type { AgentChanges, AgentReading, AgentRow, AgentStore, NewAgent } from "./store.ts";
import type { Tracking } from "./tracking.ts";

/** A `leaderboard_agents` row as pg returns it (NUMERIC as decimal strings). */
export interface AgentPgRow {
  network: LeaderboardNetwork;
  address: string;
  display_name: string;
  initial_account_value: string;
  registered_at: number;
  ledger_mark: LedgerMark | null;
  account_value: string;
  positions_count: number;
  net_deposits: string;
  refreshed_at: number | null;
  stale: boolean;
  last_error: string | null;
  tracking: Tracking | null;
}

const COLUMNS = `network, address, display_name, initial_account_value::text AS initial_account_value, registered_at,
  ledger_mark, account_value::text AS account_value, positions_count, net_deposits::text AS net_deposits,
  refreshed_at, stale, last_error, tracking`;

export function agentFromPg(r: AgentPgRow): AgentRow {
  return {
    network: r.network,
    address: r.address,
    displayName: r.display_name,
    initialAccountValue: r.initial_account_value,
    registeredAt: r.registered_at,
    ledgerMark: r.ledger_mark,
    accountValue: r.account_value,
    positionsCount: r.positions_count,
    netDeposits: r.net_deposits,
    refreshedAt: r.refreshed_at,
    stale: r.stale,
    lastError: r.last_error,
    tracking: r.tracking,
  };
}

/** The oldest transaction still running when the statement's snapshot was taken: the next cursor. */
const CURSOR = "pg_snapshot_xmin(pg_current_snapshot())::text";

/** NOTIFY channel of board changes: a registration, or the elected writer's refresh (see BoardChange). */
export const BOARD_CHANNEL = "leaderboard_board";

/** A board change as announced on BOARD_CHANNEL: which network, and which store instance wrote it. */
export interface BoardChange {
  network: LeaderboardNetwork;
  origin: string;
}

/**
 * Registered agents in Postgres (table leaderboard_agents), shared by every replica. Every new
 * registration and every `announce` is sent on BOARD_CHANNEL, so the other replicas read the changed
 * rows at once. A store bound to a fence (`fenced`) records refresh results only while that writer
 * is still elected. Every query goes through `health`: an unreachable database is a
 * StoreUnavailableError (503), logged once per outage.
 */
export class PostgresAgentStore implements AgentStore {
  /** Names this store's announcements, so its own service can tell them from the other replicas'. */
  readonly origin: string;

  /**
   * @param ready queries wait for it (the schema migration)
   * @param ownsPool close() ends the pool
   */
  constructor(
    readonly pool: Pool,
    readonly ready: Promise<void> = Promise.resolve(),
    private readonly ownsPool = false,
    private readonly fence?: Fence,
    origin?: string,
    health?: StoreHealth,
  ) {
    this.origin = origin ?? randomUUID();
    this.health = health ?? new StoreHealth(asLog(undefined, "leaderboard"), () => pool.query("SELECT 1"));
  }

  readonly health: StoreHealth;

  /** The same store, recording refresh results as the holder of `fence` (refused once deposed). */
  fenced(fence: Fence): PostgresAgentStore {
    return new PostgresAgentStore(this.pool, this.ready, false, fence, this.origin, this.health);
  }

  /** Tell every replica that `network`'s agents changed (the writer refreshed them). */
  async announce(network: LeaderboardNetwork): Promise<void> {
    await this.query("SELECT pg_notify($1, $2)", [BOARD_CHANNEL, this.change(network)]);
  }

  private change(network: LeaderboardNetwork): string {
    return JSON.stringify({ network, origin: this.origin } satisfies BoardChange);
  }

  /** A write of the elected refresh: one transaction that commits only while the fence holds. */
  private async write(sql: string, params: unknown[]): Promise<void> {
    await this.ready;
    await this.health.guard(async () => {
      if (this.fence) await fencedTransaction(this.pool, this.fence, (c) => c.query(sql, params));
      else await this.pool.query(sql, params);
    });
  }

  /** A store on its own pool, migrating the schema first; `log` hears start-up waits and outages. */
  static connect(url: string, env: NodeJS.ProcessEnv = process.env, log?: LogSink): PostgresAgentStore {
    const { pool, ready } = connectMigrated(url, env, log);
    const health = new StoreHealth(asLog(log), () => pool.query("SELECT 1"));
    return new PostgresAgentStore(pool, ready, true, undefined, undefined, health);
  }

  private async query<R extends object>(sql: string, params: unknown[]): Promise<R[]> {
    await this.ready;
    return this.health.guard(async () => (await this.pool.query<R>(sql, params)).rows);
  }

  async get(network: LeaderboardNetwork, address: string): Promise<AgentRow | undefined> {
    const [r] = await this.query<AgentPgRow>(
      `SELECT ${COLUMNS} FROM leaderboard_agents WHERE network = $1 AND address = $2`,
      [network, address],
    );
    return r ? agentFromPg(r) : undefined;
  }

  async insert(a: NewAgent): Promise<boolean> {
    // Announced in the same statement, so only when the row is new, and delivered once it commits.
    const rows = await this.query(
      `WITH added AS (
         INSERT INTO leaderboard_agents (network, address, display_name, initial_account_value, registered_at,
           ledger_mark, account_value, positions_count, refreshed_at, tracking, due_at)
         VALUES ($1, $2, $3, $4, $5, $6, $4, $7, $5, $8, 0)
         ON CONFLICT (network, address) DO NOTHING
         RETURNING address
       )
       SELECT address, pg_notify($9, $10) FROM added`,
      [
        a.network,
        a.address,
        a.displayName,
        a.initialAccountValue,
        a.registeredAt,
        a.ledgerMark ? JSON.stringify(a.ledgerMark) : null,
        a.positionsCount,
        a.tracking ? JSON.stringify(a.tracking) : null,
        BOARD_CHANNEL,
        this.change(a.network),
      ],
    );
    return rows.length === 1;
  }

  async list(network: LeaderboardNetwork): Promise<AgentRow[]> {
    const rows = await this.query<AgentPgRow>(
      `SELECT ${COLUMNS} FROM leaderboard_agents WHERE network = $1 ORDER BY registered_at, address`,
      [network],
    );
    return rows.map(agentFromPg);
  }

  async snapshot(network: LeaderboardNetwork): Promise<AgentChanges> {
    return this.changed(network, "0");
  }

  async changesSince(network: LeaderboardNetwork, cursor: string): Promise<AgentChanges> {
    return this.changed(network, cursor);
  }

  /** Rows changed by transaction `cursor` or later, and the next cursor, from one snapshot. */
  private async changed(network: LeaderboardNetwork, cursor: string): Promise<AgentChanges> {
    if (!/^\d+$/.test(cursor)) throw new Error(`not a change cursor: ${cursor}`);
    const rows = await this.query<Partial<AgentPgRow> & { next_cursor: string }>(
      `SELECT c.next_cursor, a.* FROM (SELECT ${CURSOR} AS next_cursor) c
       LEFT JOIN (SELECT ${COLUMNS} FROM leaderboard_agents WHERE network = $1 AND changed_xid >= $2::xid8) a
       ON TRUE`,
      [network, cursor],
    );
    return {
      rows: rows
        .filter((r) => r.address !== null && r.address !== undefined)
        .map((r) => agentFromPg(r as AgentPgRow)),
      cursor: rows[0]?.next_cursor ?? cursor,
    };
  }

  async count(network: LeaderboardNetwork): Promise<number> {
    const [r] = await this.query<{ n: number }>(
      "SELECT COUNT(*)::int AS n FROM leaderboard_agents WHERE network = $1",
      [network],
    );
    return r?.n ?? 0;
  }

  async recordSuccess(network: LeaderboardNetwork, address: string, v: AgentReading): Promise<void> {
    await this.write(
      `UPDATE leaderboard_agents SET account_value = $1, positions_count = $2, net_deposits = $3,
         refreshed_at = $4, stale = FALSE, last_error = NULL, tracking = $7
       WHERE network = $5 AND address = $6`,
      [
        v.accountValue,
        v.positionsCount,
        v.netDeposits,
        v.at,
        network,
        address,
        v.tracking ? JSON.stringify(v.tracking) : null,
      ],
    );
  }

  async recordFailure(network: LeaderboardNetwork, address: string, error: string): Promise<void> {
    await this.write(
      "UPDATE leaderboard_agents SET stale = TRUE, last_error = $1 WHERE network = $2 AND address = $3",
      [error, network, address],
    );
  }

  async close(): Promise<void> {
    if (this.ownsPool) await this.pool.end();
  }
}
