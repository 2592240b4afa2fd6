import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { generatePrivateKey } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool, type Pool } from "../../src/db/pool.ts";
import { HlClient } from "../../src/exchange/index.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { type OutageProxy, startOutageProxy } from "../support/outage-proxy.ts";
import { usePostgres } from "../support/postgres.ts";
import { migrated, spawnReplica } from "../support/replicas.ts";
import { type RoundRobin, startRoundRobin } from "../support/round-robin.ts";

/**
 * Two `hl leaderboard serve` and two `hl points serve` processes on one Postgres, each pair behind a
 * round-robin balancer (test/support/round-robin.ts, standing in for HAProxy). Postgres is reached
 * through a relay that can cut it off: during the outage reads answer stale, writes a logged 503,
 * /health 503, nothing names the database; all of it recovers without a restart. Then SIGKILL the
 * elected writer of each: the other takes over and serves fresh values within 5 s. Every log line
 * is JSON and none carries the database password.
 */

/** How long Postgres stays away (E2E_OUTAGE_S, default 3 s). */
const OUTAGE_MS = Number(process.env.E2E_OUTAGE_S ?? 3) * 1000;

const postgres = usePostgres();
let sim: SimWorld;
let dir: string;
let pool: Pool;
let relay: OutageProxy;
let password: string;
const procs: ChildProcess[] = [];
const logs: string[][] = [];
const lb: string[] = [];
const pts: string[] = [];
let lbBalancer: RoundRobin;
let ptsBalancer: RoundRobin;

/** A database owned by a role of its own, whose password the logs are then searched for. */
async function ownDatabase(): Promise<string> {
  const admin = new URL(postgres.current.adminUrl);
  password = `pw-${randomBytes(8).toString("hex")}`;
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`CREATE ROLE hl_e2e LOGIN PASSWORD '${password}'`);
    await client.query("CREATE DATABASE hl_e2e OWNER hl_e2e");
  } finally {
    await client.end();
  }
  const direct = new URL(admin);
  direct.username = "hl_e2e";
  direct.password = password;
  direct.pathname = "/hl_e2e";
  return direct.toString();
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "lb-points-replicas-e2e-"));
  sim = await startSimWorld({ seed: 9, historyDays: 0 });
  const direct = await ownDatabase();
  await migrated(direct); // the processes would migrate too; done once here so they start together
  pool = createPool(direct);
  relay = await startOutageProxy(direct);
  const url = relay.via(direct);
  const common = {
    DATABASE_URL: url,
    HL_PRIVATE_KEY: "",
    HL_API_URL: sim.url,
  };
  const started = [0, 1].flatMap((i) => [
    spawnReplica(
      ["leaderboard", "serve", "--port", "0"],
      {
        ...common,
        HL_REPLICA_NAME: `lb-${i}`,
        DATA_DIR: join(dir, `lb${i}`),
        HL_API_URL_TESTNET: sim.url,
        // The refresh period the compose file uses: fresh values within 5 s of a takeover can only
        // come from the new writer's refresh at election.
        LEADERBOARD_REFRESH_S: "10",
        LEADERBOARD_REGISTER_PER_MIN: "1000",
        LEADERBOARD_REGISTER_BURST: "1000",
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
  for (const s of started) {
    procs.push(s.proc);
    logs.push(s.stderr);
  }
  const urls = await Promise.all(started.map((s) => s.url));
  lb.push(urls[0]!, urls[2]!);
  pts.push(urls[1]!, urls[3]!);
  lbBalancer = await startRoundRobin(lb);
  ptsBalancer = await startRoundRobin(pts);
}, 60_000);
afterAll(async () => {
  for (const p of procs) p.kill("SIGKILL");
  await lbBalancer?.close();
  await ptsBalancer?.close();
  await pool?.end();
  await relay?.close();
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

async function json<T>(url: string, init?: RequestInit): Promise<{ status: number; body: T; text: string }> {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as T, text };
}

const register = (base: string, address: string) =>
  json<{ new: boolean; error?: string }>(`${base}/api/register`, {
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
type Health = { store: string; writer: { role: string } };
const health = (base: string) => json<Health>(`${base}/health`);

/** What no answer may contain: the database's address, port or password. */
function leaksNothing(text: string): void {
  expect(text).not.toContain(String(relay.port));
  expect(text).not.toContain(new URL(postgres.current.adminUrl).port);
  expect(text).not.toContain(password);
  expect(text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
}

const AGENT = `0x${"e1".repeat(20)}`;

describe("leaderboard and points processes on one Postgres", () => {
  let trader: HlClient;
  let traderAddress: string;

  beforeAll(async () => {
    trader = await HlClient.create({ network: "paper", apiUrl: sim.url, privateKey: generatePrivateKey() });
    traderAddress = trader.address!.toLowerCase();
    await deposit(traderAddress, "10000");
  });
  afterAll(async () => {
    await trader?.close();
  });

  const trade = async () => {
    const fill = await trader.marketOrder({ instrument: "yex:BTCSWP", side: "buy", size: "2" });
    expect(fill.status, JSON.stringify(fill)).toBe("filled");
  };

  it("Postgres away: reads answer stale, writes a logged 503, /health 503, no address; all recovers", async () => {
    expect((await register(lbBalancer.url, AGENT)).status).toBe(200);
    await until("both boards", async () => {
      const boards = await Promise.all(lb.map((b) => json<Board>(`${b}/api/leaderboard`)));
      return boards.every((b) => b.body.total_agents === 1);
    });
    await trade();
    // Each points replica computes the wallet once, so each has a result to answer stale.
    for (const base of pts)
      expect(
        (await json<{ fills_total: number }>(`${base}/points/market-address/${traderAddress}`)).body
          .fills_total,
      ).toBe(1);

    await relay.down();
    const downAt = Date.now();
    try {
      await until("every replica to report its store down", async () => {
        const all = await Promise.all([...lb, ...pts].map((b) => health(b)));
        return all.every((h) => h.status === 503 && h.body.store === "down");
      });
      for (const base of [...lb, ...pts]) leaksNothing((await health(base)).text);

      for (let i = 0; i < 2; i++) {
        const read = await fetch(`${lbBalancer.url}/api/leaderboard`);
        expect(read.status).toBe(200);
        expect(read.headers.get("warning")).toBe('110 - "Response is Stale"');
        expect(((await read.json()) as Board).total_agents).toBe(1);

        const stale = await json<{ stale?: boolean; fills_total: number }>(
          `${ptsBalancer.url}/points/market-address/${traderAddress}`,
        );
        expect(stale.status).toBe(200);
        expect(stale.body).toMatchObject({ stale: true, fills_total: 1 });

        const refused = await register(lbBalancer.url, `0x${"e3".repeat(20)}`);
        expect(refused.status).toBe(503);
        expect(refused.body).toEqual({ error: "store unavailable" });
        leaksNothing(refused.text);

        const unknown = await json<{ error: string }>(
          `${ptsBalancer.url}/points/market-address/0x${"e4".repeat(20)}`,
        );
        expect(unknown.status).toBe(503);
        expect(unknown.body).toEqual({ error: "store unavailable" });
        leaksNothing(unknown.text);
      }
      const left = OUTAGE_MS - (Date.now() - downAt);
      if (left > 0) await new Promise((r) => setTimeout(r, left));
    } finally {
      await relay.up();
    }

    await until(
      "every replica's store back",
      async () => (await Promise.all([...lb, ...pts].map((b) => health(b)))).every((h) => h.status === 200),
      10_000,
    );
    expect((await register(lbBalancer.url, `0x${"e3".repeat(20)}`)).status).toBe(200);
    const fresh = await json<{ stale?: boolean }>(
      `${ptsBalancer.url}/points/market-address/0x${"e4".repeat(20)}`,
    );
    expect(fresh.status).toBe(200);
    expect(fresh.body).not.toHaveProperty("stale");

    // Refused writes were logged, once per request; the outage once per change of state, not per retry.
    const events = logs.flat().map((l) => JSON.parse(l) as { event?: string; msg: string; replica?: string });
    expect(events.filter((e) => e.event === "write_refused").length).toBeGreaterThanOrEqual(1);
    expect(events.filter((e) => e.event === "lookup_refused").length).toBeGreaterThanOrEqual(1);
    for (const [i, lines] of logs.entries()) {
      const failing = lines.filter((l) => l.includes('"event":"election_failing"'));
      expect(failing.length, `process ${i}`).toBeLessThanOrEqual(2);
    }
  }, 40_000);

  it("leaderboard: SIGKILL the writer; the other is elected, logs its name and serves fresh values within 5 s", async () => {
    await until(
      "a writer",
      async () => (await Promise.all(lb.map((b) => health(b)))).some((h) => h.body.writer.role === "writer"),
      10_000,
    );
    const term = (await lease("leaderboard:schedule"))!;
    const w = term.holder === "lb-0" ? 0 : 1;
    const r = 1 - w;
    const before = (await json<Board>(`${lb[r]}/api/leaderboard`)).body.agents.find(
      (a) => a.address === AGENT,
    )!.pnl;
    await deposit(AGENT, "50");

    procs[w * 2]!.kill("SIGKILL");
    const killedAt = Date.now();
    const took = await until("fresh values on the survivor", async () => {
      const board = await json<Board>(`${lbBalancer.url}/api/leaderboard`);
      expect(board.status).toBe(200); // the balancer skips the dead replica; reads never stop
      return board.body.agents.find((a) => a.address === AGENT)?.pnl === before + 50;
    });
    expect(took).toBeLessThan(5_000);
    expect(Date.now() - killedAt).toBeLessThan(5_000);
    const now = await lease("leaderboard:schedule");
    expect(now).toMatchObject({ holder: `lb-${r}` });
    expect(now!.token).toBeGreaterThan(term.token);
    const elected = logs[r * 2]!.map(
      (l) => JSON.parse(l) as { event?: string; holder?: string; msg: string },
    );
    expect(elected).toContainEqual(
      expect.objectContaining({
        event: "elected",
        holder: `lb-${r}`,
        msg: expect.stringContaining(`lb-${r}`),
      }),
    );

    expect((await register(lb[r]!, AGENT)).body.new).toBe(false);
    expect((await register(lb[r]!, `0x${"e2".repeat(20)}`)).body.new).toBe(true);
    const stored = await pool.query("SELECT address FROM leaderboard_agents ORDER BY address");
    expect(stored.rows.map((row) => row.address)).toEqual([
      AGENT,
      `0x${"e2".repeat(20)}`,
      `0x${"e3".repeat(20)}`,
    ]);
  }, 30_000);

  it("points: SIGKILL the syncing writer; the other syncs within 5 s and no fill is lost or stored twice", async () => {
    const storedTids = async () =>
      (
        await pool.query<{ tid: number }>("SELECT tid FROM points_wallet_fills WHERE wallet = $1", [
          traderAddress,
        ])
      ).rows;
    await until("a syncing writer", async () => (await lease("points:sync")) !== undefined, 10_000);
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
    expect(new Set((await storedTids()).map((row) => row.tid)).size).toBe(2);
    const after = await json<{ fills_total: number }>(`${pts[r]}/points/market-address/${traderAddress}`);
    expect(after.body.fills_total).toBe(2);
  }, 30_000);

  it("every log line of every process is one JSON object, and none carries the database password", () => {
    const lines = logs.flat();
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(() => JSON.parse(line), line).not.toThrow();
      expect(line).not.toContain(password);
    }
  });
});
