import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

class FakeExchange implements NetworkAccounts {
  value = "150";
  calls = 0;
  async hip3Dexes() {
    return [];
  }
  async account(): Promise<AccountReading> {
    this.calls++;
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

const postgres = usePostgres();
const ex = new FakeExchange();
const replicas: { svc: LeaderboardService; url: string; open: boolean }[] = [];
let pool: Pool;

beforeAll(async () => {
  const databaseUrl = await postgres.current.freshDatabase();
  await migrated(databaseUrl);
  const config = leaderboardConfig({
    DATABASE_URL: databaseUrl,
    LEADERBOARD_REFRESH_S: "0.2",
    LEADERBOARD_STAGGER_MS: "0",
  });
  for (let i = 0; i < 2; i++) {
    const svc = createLeaderboardService(config, { source: () => ex });
    replicas.push({ svc, url: `http://127.0.0.1:${await listen(svc.app, 0)}`, open: true });
  }
  pool = createPool(databaseUrl);
});
afterAll(async () => {
  for (const r of replicas) if (r.open) await r.svc.close();
  await pool.end();
});

async function board(url: string): Promise<BoardEntry[]> {
  return ((await (await fetch(`${url}/api/leaderboard?network=testnet`)).json()) as { agents: BoardEntry[] })
    .agents;
}

async function until(what: string, ok: () => Promise<boolean>, timeoutMs = 5_000): Promise<number> {
  const start = Date.now();
  while (!(await ok())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - start;
}

const term = async () =>
  (await pool.query<{ token: number }>("SELECT token FROM leader_leases WHERE name = 'leaderboard:schedule'"))
    .rows[0]?.token;

describe("leaderboard on two Postgres replicas", () => {
  it("one replica schedules the refresh, both serve its results, and the other takes over within 5 s", async () => {
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    a.svc.startRefresh();
    await until("a scheduler", async () => (await term()) !== undefined);
    b.svc.startRefresh();
    expect(await term()).toBe(1);

    await a.svc.store.insert({
      network: "testnet",
      address: AGENT,
      displayName: "shared",
      initialAccountValue: "100",
      registeredAt: Date.now(),
      ledgerMark: null,
      positionsCount: 0,
    });
    const shows = (value: number) => async () => {
      const [onA, onB] = await Promise.all([board(a.url), board(b.url)]);
      return onA[0]?.account_value === value && onB[0]?.account_value === value;
    };
    await until("both replicas to serve the refreshed value", shows(150));
    expect(await term()).toBe(1); // still one term: the follower never campaigned its way in

    await a.svc.close();
    a.open = false;
    const took = await until("the other replica to schedule", async () => (await term()) === 2);
    expect(took).toBeLessThan(5_000);
    const calls = ex.calls;
    ex.value = "175";
    await until("the new scheduler's refresh", async () => (await board(b.url))[0]?.account_value === 175);
    expect(ex.calls).toBeGreaterThan(calls);
  }, 20_000);
});
