import type { LeaderboardNetwork } from "./account-source.ts";
import type { AgentChanges, AgentReading, AgentRow, AgentStore, NewAgent } from "./store.ts";

type Result = Pick<
  AgentRow,
  "accountValue" | "positionsCount" | "netDeposits" | "refreshedAt" | "stale" | "lastError" | "tracking"
>;

/**
 * Registrations from a shared store, refresh results kept in memory: `hl leaderboard list` against
 * the replicas' Postgres shows fresh values without writing them. Only the elected writer records
 * results there, under its lease; a one-off command holding no lease must not.
 */
export class LocalResultsStore implements AgentStore {
  private readonly results = new Map<string, Partial<Result>>();

  constructor(private readonly shared: AgentStore) {}

  async get(network: LeaderboardNetwork, address: string): Promise<AgentRow | undefined> {
    const row = await this.shared.get(network, address);
    return row && this.withResult(row);
  }

  async insert(_a: NewAgent): Promise<boolean> {
    throw new Error("this view of the leaderboard is read-only: register through the service");
  }

  async list(network: LeaderboardNetwork): Promise<AgentRow[]> {
    return (await this.shared.list(network)).map((row) => this.withResult(row));
  }

  async snapshot(network: LeaderboardNetwork): Promise<AgentChanges> {
    const snap = await this.shared.snapshot(network);
    return { rows: snap.rows.map((row) => this.withResult(row)), cursor: snap.cursor };
  }

  /** Results recorded here are not changes of the shared store: every agent counts as changed. */
  changesSince(network: LeaderboardNetwork, _cursor: string): Promise<AgentChanges> {
    return this.snapshot(network);
  }

  count(network: LeaderboardNetwork): Promise<number> {
    return this.shared.count(network);
  }

  async recordSuccess(network: LeaderboardNetwork, address: string, v: AgentReading): Promise<void> {
    this.results.set(key(network, address), {
      accountValue: v.accountValue,
      positionsCount: v.positionsCount,
      netDeposits: v.netDeposits,
      refreshedAt: v.at,
      stale: false,
      lastError: null,
      tracking: v.tracking ?? null,
    });
  }

  async recordFailure(network: LeaderboardNetwork, address: string, error: string): Promise<void> {
    const k = key(network, address);
    this.results.set(k, { ...this.results.get(k), stale: true, lastError: error });
  }

  close(): Promise<void> {
    return this.shared.close();
  }

  private withResult(row: AgentRow): AgentRow {
    const result = this.results.get(key(row.network, row.address));
    return result ? { ...row, ...result } : row;
  }
}

function key(network: LeaderboardNetwork, address: string): string {
  return `${network}:${address.toLowerCase()}`;
}
