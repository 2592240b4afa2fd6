import { afterEach, describe, expect, it } from "vitest";
import { createPool, type Pool } from "../../../src/db/pool.ts";
import { listen } from "../../../src/http/service.ts";
import type { AccountReading, NetworkAccounts } from "../../../src/services/leaderboard/account-source.ts";
import type { BoardEntry } from "../../../src/services/leaderboard/board.ts";
import { leaderboardConfig } from "../../../src/services/leaderboard/config.ts";
import type { LedgerUpdate } from "../../../src/services/leaderboard/ledger.ts";
import {
  createLeaderboardService,
  type LeaderboardService,
} from "../../../src/services/leaderboard/service.ts";
import { usePostgres } from "../../support/postgres.ts";
import { migrated } from "../../support/replicas.ts";

const AGENT = `0x${"ab".repeat(20)}`;

/** One replica's view of the exchange; `gate()` makes its account reads wait until `release()`. */
class FakeExchange implements NetworkAccounts {
  calls = 0;
  waiting = 0;
  private gated: Promise<void> | undefined;
  private open: (() => void) | undefined;
  constructor(public value: string) {}
  gate() {
    this.gated = new Promise((r) => {
      this.open = r;
    });
  }
  release() {
    this.open?.();
    this.gated = undefined;
  }
  async hip3Dexes() {
    return [];
  }
  async account(): Promise<AccountReading> {
    this.calls++;
    if (this.gated) {
      this.waiting++;
      await this.gated;
    }
    return {
      accountValue: this.value,
      positionsCount: 1,
      perDex: [{ dex: "", accountValue: this.value, positions: [] }],
    };
  }
  async ledger(): Promise<LedgerUpdate[]> {
    return [];
  }
  async close() {}
}

interface Replica {
  svc: LeaderboardService;
  url: string;
  open: boolean;
  /** Its log events, as JSON lines would carry them. */
  events: { msg: string; event?: unknown; holder?: unknown }[];
}

const postgres = usePostgres();
let replicas: Replica[] = [];
let pool: Pool | undefined;
let databaseUrl = "";

async function freshDatabase(): Promise<void> {
  databaseUrl = await postgres.current.freshDatabase();
  await migrated(databaseUrl);
  pool = createPool(databaseUrl);
}

async function replica(ex: FakeExchange, env: Record<string, string> = {}): Promise<Replica> {
  const config = leaderboardConfig({
    DATABASE_URL: databaseUrl,
    LEADERBOARD_REFRESH_S: "0.2",
    LEADERBOARD_STAGGER_MS: "0",
    ...env,
  });
  const events: Replica["events"] = [];
  const capture = (fields: Record<string, unknown>, msg: string) => events.push({ ...fields, msg });
  const svc = createLeaderboardService(config, {
    source: () => ex,
    env: { HL_REPLICA_NAME: `replica-${replicas.length}` },
    logger: { info: capture, warn: capture, error: capture },
  });
  const r = { svc, url: `http://127.0.0.1:${await listen(svc.app, 0)}`, open: true, events };
  replicas.push(r);
  return r;
}

async function close(r: Replica): Promise<void> {
  if (!r.open) return;
  r.open = false;
  await r.svc.close();
}

afterEach(async () => {
  for (const r of replicas) await close(r);
  replicas = [];
  await pool?.end();
  pool = undefined;
});

async function board(url: string): Promise<BoardEntry[]> {
  return ((await (await fetch(`${url}/api/leaderboard?network=testnet`)).json()) as { agents: BoardEntry[] })
    .agents;
}

async function until(what: string, ok: () => Promise<boolean>, timeoutMs = 5_000): Promise<number> {
  const start = Date.now();
  while (!(await ok())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - start;
}

const term = async () =>
  (
    await pool!.query<{ token: number }>(
      "SELECT token FROM leader_leases WHERE name = 'leaderboard:schedule'",
    )
  ).rows[0]?.token;

const stored = async () =>
  (
    await pool!.query<{ v: string }>(
      "SELECT account_value::text AS v FROM leaderboard_agents WHERE network = 'testnet' AND address = $1",
      [AGENT],
    )
  ).rows[0]?.v;

const newAgent = {
  network: "testnet" as const,
  address: AGENT,
  displayName: "shared",
  initialAccountValue: "100",
  registeredAt: Date.now(),
  ledgerMark: null,
  positionsCount: 0,
};

describe("leaderboard on two Postgres replicas", () => {
  it("one replica schedules the refresh, both serve its results, and the other takes over within 5 s", async () => {
    await freshDatabase();
    const ex = new FakeExchange("150");
    const a = await replica(ex);
    a.svc.startRefresh();
    await until("a scheduler", async () => (await term()) !== undefined);
    const b = await replica(ex);
    b.svc.startRefresh();
    expect(await term()).toBe(1);

    await a.svc.store.insert(newAgent);
    const shows = (value: number) => async () => {
      const [onA, onB] = await Promise.all([board(a.url), board(b.url)]);
      return onA[0]?.account_value === value && onB[0]?.account_value === value;
    };
    await until("both replicas to serve the refreshed value", shows(150));
    expect(await term()).toBe(1); // still one term: the follower never campaigned its way in

    await close(a);
    const took = await until("the other replica to schedule", async () => (await term()) === 2);
    expect(took).toBeLessThan(5_000);
    const calls = ex.calls;
    ex.value = "175";
    await until("the new scheduler's refresh", async () => (await board(b.url))[0]?.account_value === 175);
    expect(ex.calls).toBeGreaterThan(calls);
  }, 20_000);

  it("a replica rebuilds its board as soon as another one registers an agent or the writer refreshes", async () => {
    await freshDatabase();
    const ex = new FakeExchange("150");
    // Refresh periods far longer than the test: only the notifications can bring the boards up to date.
    const a = await replica(ex, { LEADERBOARD_REFRESH_S: "3600" });
    const b = await replica(ex, { LEADERBOARD_REFRESH_S: "3600" });
    a.svc.startRefresh();
    b.svc.startRefresh();
    expect(await board(a.url)).toEqual([]);
    expect(await board(b.url)).toEqual([]);

    const reg = await fetch(`${a.url}/api/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ address: AGENT, display_name: "on a" }),
    });
    expect(reg.status).toBe(200);
    const seen = await until(
      "the registration on the other replica",
      async () => (await board(b.url)).length === 1,
      2_000,
    );
    expect(seen).toBeLessThan(1_000);

    ex.value = "175";
    const writer = [a, b].find((r) => r.svc.writing());
    const reader = writer === a ? b : a;
    // The writer's first cycle (on its election) may still be running with the old value: the second is new.
    await writer!.svc.refresher.cycle();
    await writer!.svc.refresher.cycle();
    await until(
      "the refresh on the other replica",
      async () => (await board(reader.url))[0]?.account_value === 175,
      2_000,
    );
  }, 20_000);

  it("a new writer refreshes at once on its election, not one refresh period later, and logs its name", async () => {
    await freshDatabase();
    const ex = new FakeExchange("150");
    // A refresh period far longer than the test: only the election can start the new writer's cycle.
    const a = await replica(ex, { LEADERBOARD_REFRESH_S: "3600" });
    await a.svc.store.insert(newAgent);
    a.svc.startRefresh();
    await until("a to write", async () => a.svc.writing());
    const b = await replica(ex, { LEADERBOARD_REFRESH_S: "3600" });
    b.svc.startRefresh();
    await until("b's board", async () => (await board(b.url))[0]?.account_value === 150);

    ex.value = "160";
    await close(a);
    const took = await until("fresh values on b", async () => (await board(b.url))[0]?.account_value === 160);
    expect(took).toBeLessThan(5_000);
    expect(b.events).toContainEqual(
      expect.objectContaining({
        event: "elected",
        holder: "replica-1",
        msg: expect.stringContaining("replica-1"),
      }),
    );
  }, 20_000);

  it("a deposed writer's refresh results are refused: the new writer's values stay", async () => {
    await freshDatabase();
    const slow = new FakeExchange("111");
    const fresh = new FakeExchange("222");
    const env = { LEADERBOARD_REFRESH_S: "3600", LEADERBOARD_AGENT_TIMEOUT_S: "20" };
    const a = await replica(slow, env);
    await a.svc.store.insert(newAgent);
    slow.gate();
    a.svc.startRefresh();
    await until("a to be elected", async () => (await term()) === 1);
    let stale: Promise<unknown> = Promise.resolve();
    await until("a's refresh to wait on the exchange", async () => {
      if (slow.waiting > 0) return true;
      stale = a.svc.refresher.cycle(); // joins the cycle in flight, if any
      return false;
    });

    const b = await replica(fresh, env);
    b.svc.startRefresh();
    const closing = close(a); // gives the job up while its read is still in flight
    await until("b to be elected", async () => (await term()) === 2);
    await until("b's refresh", async () => {
      await b.svc.refresher.cycle();
      return (await stored()) === "222";
    });

    slow.release(); // a wakes up with its old result and tries to record it
    await stale;
    await closing;
    expect(await stored()).toBe("222");
  }, 20_000);
});
