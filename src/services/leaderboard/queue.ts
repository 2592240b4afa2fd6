import type { Pool } from "../../db/pool.ts";
import type { LeaderboardNetwork } from "./account-source.ts";
import type { AgentValues } from "./agent-refresh.ts";
import { type AgentPgRow, agentFromPg, BOARD_CHANNEL, type BoardChange } from "./pg-store.ts";
import type { AgentRow } from "./store.ts";

/** One agent held by one worker until `leaseUntil` (Postgres clock, ms); `seq` fences late writes. */
export interface Lease {
  agent: AgentRow;
  seq: number;
  leaseUntil: number;
}

interface LeasedRow extends AgentPgRow {
  lease_seq: number;
  lease_until: number;
}

function leaseOf(r: LeasedRow): Lease {
  return { seq: r.lease_seq, leaseUntil: r.lease_until, agent: agentFromPg(r) };
}

/** Postgres's clock in ms: every worker judges due times and leases by the same clock. */
const NOW_MS = "(extract(epoch FROM now()) * 1000)::bigint";

/**
 * The refresh queue over `leaderboard_agents`: an agent is due at `due_at`; a worker claims due agents
 * with `FOR UPDATE SKIP LOCKED` (two workers never claim the same one) and holds them for `leaseMs`.
 * A worker that dies or hangs simply lets its leases run out, and its agents are claimed again. A
 * result is written only while its lease still holds, so a worker waking after its lease ran out
 * cannot overwrite the refresh of the worker that took over.
 */
export class RefreshQueue {
  constructor(
    private readonly pool: Pool,
    readonly workerId: string,
    private readonly leaseMs: number,
  ) {}

  /** Claim up to `limit` due agents, most overdue first. */
  async claim(limit: number): Promise<Lease[]> {
    const { rows } = await this.pool.query<LeasedRow>(
      `WITH picked AS (
         SELECT network, address FROM leaderboard_agents
         WHERE due_at <= ${NOW_MS} AND (lease_until IS NULL OR lease_until < ${NOW_MS})
         ORDER BY due_at
         LIMIT $2
         FOR UPDATE SKIP LOCKED
       )
       UPDATE leaderboard_agents a
       SET leased_by = $1, lease_until = ${NOW_MS} + $3, lease_seq = a.lease_seq + 1
       FROM picked
       WHERE a.network = picked.network AND a.address = picked.address
       RETURNING a.*`,
      [this.workerId, limit, this.leaseMs],
    );
    return rows.map(leaseOf);
  }

  /** Record a refresh and schedule the next in `nextInMs`; false when the lease was lost (nothing written). */
  async complete(lease: Lease, v: AgentValues, nextInMs: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE leaderboard_agents
       SET account_value = $5, positions_count = $6, net_deposits = $7, tracking = $8,
         refreshed_at = ${NOW_MS}, stale = FALSE, last_error = NULL,
         due_at = ${NOW_MS} + $9, leased_by = NULL, lease_until = NULL
       WHERE network = $1 AND address = $2 AND leased_by = $3 AND lease_seq = $4
         AND lease_until >= ${NOW_MS}`,
      [
        lease.agent.network,
        lease.agent.address,
        this.workerId,
        lease.seq,
        v.accountValue,
        v.positionsCount,
        v.netDeposits,
        v.tracking ? JSON.stringify(v.tracking) : null,
        nextInMs,
      ],
    );
    return rowCount === 1;
  }

  /** The exchange could not be read: keep the last values, mark the agent stale, try again in `nextInMs`. */
  async fail(lease: Lease, error: string, nextInMs: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE leaderboard_agents
       SET stale = TRUE, last_error = $5, due_at = ${NOW_MS} + $6, leased_by = NULL, lease_until = NULL
       WHERE network = $1 AND address = $2 AND leased_by = $3 AND lease_seq = $4
         AND lease_until >= ${NOW_MS}`,
      [lease.agent.network, lease.agent.address, this.workerId, lease.seq, error, nextInMs],
    );
    return rowCount === 1;
  }

  /** Tell the service's replicas that `network`'s agents changed: they read the changed rows. */
  async announce(network: LeaderboardNetwork): Promise<void> {
    const change: BoardChange = { network, origin: this.workerId };
    await this.pool.query("SELECT pg_notify($1, $2)", [BOARD_CHANNEL, JSON.stringify(change)]);
  }

  /** Give back every agent this worker holds (a clean stop): they are due again at once. */
  async releaseAll(): Promise<void> {
    await this.pool.query(
      "UPDATE leaderboard_agents SET leased_by = NULL, lease_until = NULL WHERE leased_by = $1",
      [this.workerId],
    );
  }
}
