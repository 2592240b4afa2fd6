import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { migrate } from "../../../src/db/migrate.ts";
import { PgListener } from "../../../src/db/notify.ts";
import { createPool, type Pool } from "../../../src/db/pool.ts";
import type { AccountReading, NetworkAccounts } from "../../../src/services/leaderboard/account-source.ts";
import { leaderboardConfig } from "../../../src/services/leaderboard/config.ts";
import { BOARD_CHANNEL } from "../../../src/services/leaderboard/pg-store.ts";
import { RefreshQueue } from "../../../src/services/leaderboard/queue.ts";
import { createLeaderboardService } from "../../../src/services/leaderboard/service.ts";
import { RefreshWorker } from "../../../src/services/leaderboard/worker.ts";
import { usePostgres } from "../../support/postgres.ts";

const postgres = usePostgres();
const addr = (i: number) => `0x${(0xbeef00 + i).toString(16).padStart(40, "0")}`;

/**
 * An exchange where every account is worth 100 + its index and each read takes `delayMs`. It notes
 * which worker read which agent, and fails the test if two reads of one agent ever overlap.
 */
class CountingExchange implements NetworkAccounts {
  readonly inFlight = new Set<string>();
  readonly reads = new Map<string, number>();
  overlaps = 0;
  constructor(private readonly delayMs: number) {}
  async hip3Dexes() {
    return [];
  }
  async account(user: string): Promise<AccountReading> {
    if (this.inFlight.has(user)) this.overlaps++;
    this.inFlight.add(user);
    try {
      await new Promise((r) => setTimeout(r, this.delayMs));
      this.reads.set(user, (this.reads.get(user) ?? 0) + 1);
      const accountValue = String(100 + Number.parseInt(user.slice(-4), 16) - 0xef00);
      return { accountValue, positionsCount: 0, perDex: [{ dex: "", accountValue, positions: [] }] };
    } finally {
      this.inFlight.delete(user);
    }
  }
  async ledger() {
    return [];
  }
  async close() {}
}

let pool: Pool;
const workers: RefreshWorker[] = [];

beforeEach(async () => {
  pool = createPool(await postgres.current.freshDatabase());
  await migrate(pool);
  const values: string[] = [];
  const params: unknown[] = [];
  for (let i = 0; i < 40; i++) {
    const b = params.length;
    values.push(`('testnet', $${b + 1}, 'a', 100, 0, 100, 0)`);
    params.push(addr(i));
  }
  await pool.query(
    `INSERT INTO leaderboard_agents (network, address, display_name, initial_account_value, registered_at,
       account_value, due_at) VALUES ${values.join(", ")}`,
    params,
  );
});

afterEach(async () => {
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  await pool.end();
});

function worker(id: string, ex: NetworkAccounts, leaseMs = 5_000) {
  const w = new RefreshWorker({
    queue: new RefreshQueue(pool, id, leaseMs),
    source: () => ex,
    concurrency: 4,
    intervalMs: 60_000,
    agentTimeoutMs: 1_000,
    idleMs: 50,
  });
  workers.push(w);
  return w;
}

async function until(cond: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 25));
  }
}

const refreshedCount = async () =>
  (
    await pool.query<{ n: number }>(
      "SELECT COUNT(*) AS n FROM leaderboard_agents WHERE refreshed_at IS NOT NULL AND tracking IS NOT NULL",
    )
  ).rows[0]!.n;

describe("leaderboard refresh queue on Postgres", () => {
  it("two workers share the agents: each refreshed once per interval, never twice at once", async () => {
    const ex = new CountingExchange(10);
    const a = worker("a", ex);
    const b = worker("b", ex);
    a.start();
    b.start();
    await until(async () => (await refreshedCount()) === 40, 10_000);
    await new Promise((r) => setTimeout(r, 200)); // nothing is due again within the interval
    expect(ex.overlaps).toBe(0);
    expect([...ex.reads.values()].every((n) => n === 1)).toBe(true);
    expect(ex.reads.size).toBe(40);
    expect(a.stats.refreshed + b.stats.refreshed).toBe(40);
    expect(a.stats.refreshed).toBeGreaterThan(5);
    expect(b.stats.refreshed).toBeGreaterThan(5);
    const row = (
      await pool.query<{
        account_value: string;
        due_at: number;
        refreshed_at: number;
        leased_by: string | null;
      }>("SELECT account_value, due_at, refreshed_at, leased_by FROM leaderboard_agents WHERE address = $1", [
        addr(7),
      ])
    ).rows[0]!;
    expect(row.account_value).toBe("107");
    expect(row.due_at - row.refreshed_at).toBe(60_000);
    expect(row.leased_by).toBeNull();
  });

  it("a killed worker's agents are refreshed by the other once its lease runs out; its late result is refused", async () => {
    // The dead worker claimed 10 agents and then died (its process killed: the leases stay behind).
    const dead = new RefreshQueue(pool, "dead", 1_000);
    const held = await dead.claim(10);
    expect(held).toHaveLength(10);
    const claimedAt = Date.now();
    const ex = new CountingExchange(5);
    const alive = worker("alive", ex);
    alive.start();
    await until(async () => (await refreshedCount()) === 30, 10_000);
    // The 10 held agents are not touched while the lease holds...
    for (const l of held) expect(ex.reads.has(l.agent.address)).toBe(false);
    // ...and are refreshed by the survivor right after it runs out.
    await until(async () => (await refreshedCount()) === 40, 10_000);
    expect(Date.now() - claimedAt).toBeGreaterThanOrEqual(1_000);
    expect(Date.now() - claimedAt).toBeLessThan(4_000);
    for (const l of held) expect(ex.reads.get(l.agent.address)).toBe(1);
    // The dead worker waking up cannot overwrite what the survivor wrote.
    const late = await dead.complete(
      held[0]!,
      { accountValue: "1", positionsCount: 0, netDeposits: "0", tracking: null },
      60_000,
    );
    expect(late).toBe(false);
    const v = await pool.query<{ account_value: string }>(
      "SELECT account_value FROM leaderboard_agents WHERE address = $1",
      [held[0]!.agent.address],
    );
    expect(v.rows[0]!.account_value).not.toBe("1");
    expect(ex.overlaps).toBe(0);
  });

  it("a stuck refresh gives up inside the lease: the agent is marked stale and due again", async () => {
    const hanging: NetworkAccounts = {
      hip3Dexes: async () => [],
      account: () => new Promise<never>(() => undefined),
      ledger: async () => [],
      close: async () => undefined,
    };
    const w = worker("stuck", hanging, 3_000);
    w.start();
    await until(async () => w.stats.failed >= 4, 5_000);
    const row = (
      await pool.query<{ stale: boolean; last_error: string; leased_by: string | null }>(
        "SELECT stale, last_error, leased_by FROM leaderboard_agents WHERE stale LIMIT 1",
      )
    ).rows[0]!;
    expect(row).toMatchObject({ stale: true, leased_by: null });
    expect(row.last_error).toMatch(/no answer within 1000 ms/);
    expect(w.stats.lost).toBe(0);
  });

  it("a refresh cut short by the worker's stop (its reads given up) leaves its agents unmarked and back in the queue", async () => {
    let giveUp: () => void = () => undefined;
    const stopping = new Promise<void>((r) => {
      giveUp = r;
    });
    let reading = 0;
    // Reads waiting for request weight, given up when the worker stops (as serveUntilStopped does).
    const waiting: NetworkAccounts = {
      hip3Dexes: async () => [],
      account: async () => {
        reading++;
        await stopping;
        throw new Error("info given up: its caller stopped while it waited for weight");
      },
      ledger: async () => [],
      close: async () => undefined,
    };
    const w = worker("stopping", waiting);
    workers.splice(workers.indexOf(w), 1);
    w.start();
    await until(async () => reading >= 4, 5_000);
    const stopped = w.stop();
    giveUp();
    await stopped;
    const marked = await pool.query<{ n: string }>(
      "SELECT COUNT(*) AS n FROM leaderboard_agents WHERE stale OR last_error IS NOT NULL OR leased_by IS NOT NULL",
    );
    expect(Number(marked.rows[0]!.n)).toBe(0);
  });

  it("the service's replicas show a worker's results by its announcements, not a refresh period later", async () => {
    const url = pool.options.connectionString!;
    const svc = createLeaderboardService(
      leaderboardConfig({
        DATABASE_URL: url,
        LEADERBOARD_REFRESH_BY: "workers",
        LEADERBOARD_REFRESH_S: "3600",
      }),
      {
        source: () => {
          throw new Error("the service reads no exchange here");
        },
        logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      },
    );
    const heard: string[] = [];
    const listener = new PgListener({ connectionString: url, log: () => undefined });
    try {
      await svc.ready;
      svc.startRefresh();
      await listener.subscribe(BOARD_CHANNEL, (p) => heard.push(p));
      await listener.start();
      const before = await svc.refresher.board("testnet");
      expect(before.entries.every((e) => e.account_value === 100)).toBe(true);
      worker("w", new CountingExchange(1)).start();
      // Every agent but the first (worth 100 + its index) moved.
      await until(
        async () =>
          (await svc.refresher.board("testnet")).entries.filter((e) => e.account_value > 100).length === 39,
        3_000,
      );
      // 40 results, announced together: a few notifications, not one per agent.
      expect(heard.length).toBeGreaterThan(0);
      expect(heard.length).toBeLessThan(10);
      expect(JSON.parse(heard[0]!)).toEqual({ network: "testnet", origin: "w" });
    } finally {
      await listener.close();
      await svc.close();
    }
  });
});
