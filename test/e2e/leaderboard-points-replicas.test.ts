import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generatePrivateKey } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool, type Pool } from "../../src/db/pool.ts";
import { HlClient } from "../../src/exchange/index.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { usePostgres } from "../support/postgres.ts";
import { migrated, spawnReplica } from "../support/replicas.ts";

/**
 * Two `hl leaderboard serve` and two `hl points serve` processes on one Postgres: SIGKILL the
 * elected writer of each; the other takes the job over within 5 s, reads keep answering, and no
 * registration or fill is lost or stored twice.
 */

const postgres = usePostgres();
let sim: SimWorld;
let dir: string;
let pool: Pool;
const procs: ChildProcess[] = [];
const lb: string[] = [];
const pts: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "lb-points-replicas-e2e-"));
  sim = await startSimWorld({ seed: 9, historyDays: 0 });
  const url = await postgres.current.freshDatabase();
  await migrated(url); // the processes would migrate too; done once here so they start together
  pool = createPool(url);
  const common = { DATABASE_URL: url, HL_PRIVATE_KEY: "", HL_API_URL: sim.url };
  const started = [0, 1].flatMap((i) => [
    spawnReplica(
      ["leaderboard", "serve", "--port", "0"],
      {
        ...common,
        HL_REPLICA_NAME: `lb-${i}`,
        DATA_DIR: join(dir, `lb${i}`),
        HL_API_URL_TESTNET: sim.url,
        LEADERBOARD_REFRESH_S: "0.3",
      },
      /leaderboard on (http:\/\/[^/\s]+)\//,
    ),
    spawnReplica(
      ["points", "serve", "--network", "paper", "--port", "0"],
      {
        ...common,
        HL_REPLICA_NAME: `points-${i}`,
        DATA_DIR: join(dir, `p${i}`),
        POINTS_FOLLOW_MS: "200",
        POINTS_CACHE_MS: "0",
        BTCSWP_FEED_URL: "http://127.0.0.1:9", // no feed: marks play no part here
      },
      /points API on (http:\/\/[^/\s]+)\/points/,
    ),
  ]);
  for (const s of started) procs.push(s.proc);
  const urls = await Promise.all(started.map((s) => s.url));
  lb.push(urls[0]!, urls[2]!);
  pts.push(urls[1]!, urls[3]!);
}, 30_000);
afterAll(async () => {
  for (const p of procs) p.kill("SIGKILL");
  await pool?.end();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function until(what: string, ok: () => Promise<boolean>, timeoutMs = 5_000): Promise<number> {
  const start = Date.now();
  while (!(await ok())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - start;
}

async function lease(name: string): Promise<{ holder: string; token: number } | undefined> {
  const { rows } = await pool.query<{ holder: string; token: number }>(
    "SELECT holder, token FROM leader_leases WHERE name = $1",
    [name],
  );
  return rows[0];
}

async function json<T>(url: string, init?: RequestInit): Promise<{ status: number; body: T }> {
  const res = await fetch(url, init);
  return { status: res.status, body: (await res.json()) as T };
}

const register = (base: string, address: string) =>
  json<{ new: boolean }>(`${base}/api/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ address }),
  });

async function deposit(user: string, amount: string): Promise<void> {
  const res = await fetch(`${sim.url}/sim/deposit`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user, amount }),
  });
  expect(res.status).toBe(200);
}

type Board = { agents: { address: string; pnl: number }[]; total_agents: number };

describe("leaderboard and points processes on one Postgres", () => {
  it("leaderboard: SIGKILL the scheduling writer; the other schedules within 5 s and serves every registration once", async () => {
    const agent = `0x${"e1".repeat(20)}`;
    expect((await register(lb[1]!, agent)).status).toBe(200);
    await until("a scheduler", async () => (await lease("leaderboard:schedule")) !== undefined);
    const term = (await lease("leaderboard:schedule"))!;
    const w = term.holder === "lb-0" ? 0 : 1;
    const r = 1 - w;
    await deposit(agent, "100");
    const shows = (base: string, pnl: number) => async () =>
      (await json<Board>(`${base}/api/leaderboard`)).body.agents[0]?.pnl === pnl;
    await until(
      "both replicas to serve the refresh",
      async () => (await shows(lb[0]!, 100)()) && (await shows(lb[1]!, 100)()),
    );

    procs[w * 2]!.kill("SIGKILL");
    const took = await until("the other replica to schedule", async () => {
      const now = await lease("leaderboard:schedule");
      // The survivor answers throughout.
      expect((await json<Board>(`${lb[r]}/api/leaderboard`)).body.total_agents).toBe(1);
      return now !== undefined && now.holder === `lb-${r}` && now.token > term.token;
    });
    expect(took).toBeLessThan(5_000);
    await deposit(agent, "50");
    await until("the new scheduler's refresh", shows(lb[r]!, 150));

    expect((await register(lb[r]!, agent)).body.new).toBe(false);
    expect((await register(lb[r]!, `0x${"e2".repeat(20)}`)).body.new).toBe(true);
    const stored = await pool.query("SELECT address FROM leaderboard_agents ORDER BY address");
    expect(stored.rows.map((row) => row.address)).toEqual([agent, `0x${"e2".repeat(20)}`]);
    await until(
      "the survivor's board",
      async () => (await json<Board>(`${lb[r]}/api/leaderboard`)).body.total_agents === 2,
    );
  }, 30_000);

  it("points: SIGKILL the syncing writer; the other syncs within 5 s and no fill is lost or stored twice", async () => {
    const trader = await HlClient.create({
      network: "paper",
      apiUrl: sim.url,
      privateKey: generatePrivateKey(),
    });
    const address = trader.address!.toLowerCase();
    try {
      await deposit(address, "10000");
      const trade = async () => {
        const fill = await trader.marketOrder({ instrument: "yex:BTCSWP", side: "buy", size: "2" });
        expect(fill.status, JSON.stringify(fill)).toBe("filled");
      };
      await trade();
      const scored = await json<{ fills_total: number }>(`${pts[0]}/points/market-address/${address}`);
      expect(scored.body.fills_total).toBe(1);
      const storedTids = async () =>
        (
          await pool.query<{ tid: number }>("SELECT tid FROM points_wallet_fills WHERE wallet = $1", [
            address,
          ])
        ).rows;

      await until("a syncing writer", async () => (await lease("points:sync")) !== undefined);
      const term = (await lease("points:sync"))!;
      const w = term.holder === "points-0" ? 0 : 1;
      const r = 1 - w;
      procs[w * 2 + 1]!.kill("SIGKILL");
      await trade();
      const took = await until("the other replica to sync the new fill", async () => {
        const now = await lease("points:sync");
        expect((await fetch(`${pts[r]}/points/market-config`)).status).toBe(200);
        return now?.holder === `points-${r}` && now.token > term.token && (await storedTids()).length === 2;
      });
      expect(took).toBeLessThan(5_000);
      const tids = (await storedTids()).map((row) => row.tid);
      expect(new Set(tids).size).toBe(2);
      const after = await json<{ fills_total: number }>(`${pts[r]}/points/market-address/${address}`);
      expect(after.body.fills_total).toBe(2);
    } finally {
      await trader.close();
    }
  }, 30_000);
});
