import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { generatePrivateKey } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool, type Pool } from "../../src/db/pool.ts";
import { HlClient } from "../../src/exchange/index.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { type Haproxy, startHaproxy } from "../support/haproxy.ts";
import { type OutageProxy, startOutageProxy } from "../support/outage-proxy.ts";
import { usePostgres } from "../support/postgres.ts";
import { migrated, spawnReplica } from "../support/replicas.ts";

/**
 * The deployment of compose.postgres.yaml on real processes: two `hl leaderboard serve` and two
 * `hl points serve` on one Postgres, behind HAProxy run from deploy/haproxy.cfg itself (its
 * addresses from environment variables: loopback ports here, compose names there), with
 * LEADERBOARD_TRUSTED_PROXIES naming the balancer's address as compose does. Clients behind the
 * balancer are counted apart; a client that forges X-Forwarded-For straight to a replica is not.
 * Postgres is reached through a relay that can cut it off: during the outage reads answer stale,
 * writes a logged 503, /health 503 (and HAProxy's health checks see it), nothing names the database;
 * all of it recovers without a restart. Then SIGKILL the elected writer of each: the other takes
 * over and serves fresh values within 5 s, through the balancer. Every log line is JSON and none
 * carries the database password.
 */

/** How long Postgres stays away: REPLICAS_E2E_OUTAGE_S (default 3 s; the full run is 20). */
const OUTAGE_MS = Number(process.env.REPLICAS_E2E_OUTAGE_S ?? 3) * 1000;
/** HAProxy's health-check interval here (compose: 3 s), so a dead replica is out within half a second. */
const CHECK_INTER_MS = 200;
/** The registration bucket: so many at once per client, then one a minute. */
const BURST = 2;

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
let haproxy: Haproxy;
/** The balancer's frontends: what clients use. */
let lbUrl: string;
let ptsUrl: string;

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
        LEADERBOARD_REGISTER_PER_MIN: "1",
        LEADERBOARD_REGISTER_BURST: String(BURST),
        // The balancer's address, as compose gives lb's: X-Forwarded-For is believed from it only.
        LEADERBOARD_TRUSTED_PROXIES: "127.0.0.1",
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
  haproxy = await startHaproxy(
    { leaderboard: [lb[0]!, lb[1]!], points: [pts[0]!, pts[1]!] },
    { checkInterMs: CHECK_INTER_MS },
  );
  lbUrl = haproxy.url("leaderboard");
  ptsUrl = haproxy.url("points");
}, 60_000);
afterAll(async () => {
  for (const p of procs) p.kill("SIGKILL");
  await haproxy?.close();
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
  try {
    return { status: res.status, body: JSON.parse(text) as T, text };
  } catch {
    throw new Error(
      `${url}: ${res.status} ${text.slice(0, 200)}; haproxy: ${haproxy.output.slice(-5).join(" | ")}`,
    );
  }
}

const register = (base: string, address: string) =>
  json<{ new: boolean; error?: string }>(`${base}/api/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ address }),
  });

/** A registration from a client at `from` (a loopback address of its own), with the headers it chooses. */
function registerFrom(base: string, from: string, address: string, headers: Record<string, string> = {}) {
  const body = JSON.stringify({ address });
  return new Promise<number>((resolve, reject) => {
    const req = request(
      `${base}/api/register`,
      {
        method: "POST",
        localAddress: from,
        agent: false,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          ...headers,
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Each balanced server as HAProxy's health checks see it. */
async function checked(): Promise<
  { name: string; status: string; checkStatus: string; checkCode: string }[]
> {
  const servers = await haproxy.servers();
  return [...servers]
    .filter(([name]) => name.startsWith("leaderboard/") || name.startsWith("points/"))
    .map(([name, s]) => ({ name, ...s }));
}

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
    // yex is margined from the main balance only under dex abstraction (a new account keeps it apart).
    await trader.enableDexAbstraction();
  });
  afterAll(async () => {
    await trader?.close();
  });

  const trade = async () => {
    const fill = await trader.marketOrder({ instrument: "yex:BTCSWP", side: "buy", size: "2" });
    expect(fill.status, JSON.stringify(fill)).toBe("filled");
  };

  it("behind HAProxy two clients have a bucket each; X-Forwarded-For forged straight to a replica buys nothing", async () => {
    expect((await register(lbUrl, AGENT)).status).toBe(200); // 127.0.0.1 is the balancer: exempt
    /** One client's registrations in turn, each answer's status (the three clients run side by side). */
    const sequence = async (attempts: (() => Promise<number>)[]) => {
      const statuses: number[] = [];
      for (const attempt of attempts) statuses.push(await attempt());
      return statuses;
    };
    const limited = [...Array(BURST).fill(200), 429, 429];
    const viaLb = (from: string, headers?: Record<string, string>) => () =>
      registerFrom(lbUrl, from, AGENT, headers);
    // Straight to the replicas, a new forged address each time: all of it is one client, 127.0.0.4,
    // whose bucket the replicas share (Postgres).
    const forged = (i: number) => () =>
      registerFrom(lb[i % 2]!, "127.0.0.4", AGENT, { "x-forwarded-for": `198.51.100.${i}` });
    const [first, second, forger] = await Promise.all([
      // The last one forges X-Forwarded-For: HAProxy appends the address it saw, which is the one counted.
      sequence([
        ...Array(BURST + 1).fill(viaLb("127.0.0.2")),
        viaLb("127.0.0.2", { "x-forwarded-for": "203.0.113.77" }),
      ]),
      // The second client behind the same balancer has a bucket of its own.
      sequence(Array(BURST + 2).fill(viaLb("127.0.0.3"))),
      sequence(limited.map((_, i) => forged(i))),
    ]);
    expect(first).toEqual(limited);
    expect(second).toEqual(limited);
    expect(forger).toEqual(limited);
  });

  it("Postgres away: reads answer stale, writes a logged 503, /health 503, no address; all recovers", async () => {
    await until(
      "both boards",
      async () => {
        const boards = await Promise.all(lb.map((b) => json<Board>(`${b}/api/leaderboard`)));
        return boards.every((b) => b.body.total_agents === 1);
      },
      10_000,
    );
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
      // Through the balancer too; its own checks see every replica's 503 and keep it in rotation
      // (deploy/haproxy.cfg: a replica whose store is away still serves reads, marked stale).
      for (const base of [lbUrl, ptsUrl]) {
        const through = await health(base);
        expect(through.status).toBe(503);
        expect(through.body.store).toBe("down");
        leaksNothing(through.text);
      }
      await until("HAProxy's health checks to see 503 on every replica", async () =>
        (await checked()).every((s) => s.checkCode === "503"),
      );
      for (const s of await checked()) expect(s.status, s.name).toBe("UP");

      for (let i = 0; i < 2; i++) {
        const read = await fetch(`${lbUrl}/api/leaderboard`);
        expect(read.status).toBe(200);
        expect(read.headers.get("warning")).toBe('110 - "Response is Stale"');
        expect(((await read.json()) as Board).total_agents).toBe(1);

        const stale = await json<{ stale?: boolean; fills_total: number }>(
          `${ptsUrl}/points/market-address/${traderAddress}`,
        );
        expect(stale.status).toBe(200);
        expect(stale.body).toMatchObject({ stale: true, fills_total: 1 });

        const refused = await register(lbUrl, `0x${"e3".repeat(20)}`);
        expect(refused.status).toBe(503);
        expect(refused.body).toEqual({ error: "store unavailable" });
        leaksNothing(refused.text);

        const unknown = await json<{ error: string }>(`${ptsUrl}/points/market-address/0x${"e4".repeat(20)}`);
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
    await until("HAProxy's checks to see 200 again", async () =>
      (await checked()).every((s) => s.checkCode === "200" && s.status === "UP"),
    );
    expect((await register(lbUrl, `0x${"e3".repeat(20)}`)).status).toBe(200);
    const fresh = await json<{ stale?: boolean }>(`${ptsUrl}/points/market-address/0x${"e4".repeat(20)}`);
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
      const board = await json<Board>(`${lbUrl}/api/leaderboard`);
      expect(board.status).toBe(200); // the balancer skips the dead replica; reads never stop
      return board.body.agents.find((a) => a.address === AGENT)?.pnl === before + 50;
    });
    expect(took).toBeLessThan(5_000);
    expect(Date.now() - killedAt).toBeLessThan(5_000);
    await until("HAProxy to take the killed replica out", async () =>
      (await checked()).some((s) => s.name === `leaderboard/leaderboard-${w + 1}` && s.status === "DOWN"),
    );
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

    expect((await register(lbUrl, AGENT)).body.new).toBe(false);
    expect((await register(lbUrl, `0x${"e2".repeat(20)}`)).body.new).toBe(true);
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
      expect((await fetch(`${ptsUrl}/points/market-config`)).status).toBe(200);
      return now?.holder === `points-${r}` && now.token > term.token && (await storedTids()).length === 2;
    });
    expect(took).toBeLessThan(5_000);
    expect(new Set((await storedTids()).map((row) => row.tid)).size).toBe(2);
    const after = await json<{ fills_total: number }>(`${ptsUrl}/points/market-address/${traderAddress}`);
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

  it("the balancer logs each request as one JSON object (its own up/down notices stay text)", () => {
    const requests = haproxy.output.filter((line) => line.startsWith("{")).map((line) => JSON.parse(line));
    expect(requests.length).toBeGreaterThan(0);
    for (const r of requests)
      expect(r).toEqual({
        time: expect.any(Number),
        event: "request",
        client: expect.any(String),
        frontend: expect.any(String),
        backend: expect.any(String),
        server: expect.any(String),
        method: expect.any(String),
        path: expect.stringMatching(/^\/[^?]*$/),
        status: expect.any(Number),
        bytes: expect.any(Number),
        ms: expect.any(Number),
        retries: expect.stringMatching(/^\+?\d+$/),
        termination: expect.any(String),
      });
    expect(requests.some((r) => r.frontend === "leaderboard" && r.status === 200)).toBe(true);
    expect(
      haproxy.output
        .filter((line) => !line.startsWith("{"))
        .every((line) => /\bServer \w+\/|Proxy |backend /.test(line)),
      haproxy.output.filter((l) => !l.startsWith("{")).join("\n"),
    ).toBe(true);
  });
});
