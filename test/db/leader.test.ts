import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fence, FencedOutError, fencedTransaction, LeaderElection } from "../../src/db/leader.ts";
import { migrate } from "../../src/db/migrate.ts";
import { createPool, type Pool } from "../../src/db/pool.ts";
import { type OutageProxy, startOutageProxy } from "../support/outage-proxy.ts";
import { usePostgres } from "../support/postgres.ts";

const ROOT = join(import.meta.dirname, "../..");
const pg = usePostgres();
let url: string;
let pool: Pool;

beforeAll(async () => {
  url = await pg.current.freshDatabase();
  pool = createPool(url);
  await migrate(pool);
  await pool.query("CREATE TABLE fenced_writes (id BIGSERIAL PRIMARY KEY, token BIGINT NOT NULL)");
});
afterAll(async () => {
  await pool.end();
});

/** An election that records its terms; `fence` is the current one. */
function candidate(name: string, leaseMs = 1000) {
  const terms: string[] = [];
  let fence: Fence | undefined;
  const election = new LeaderElection({
    connectionString: url,
    name,
    leaseMs,
    retryMs: 100,
    log: () => undefined,
    onElected(f) {
      fence = f;
      terms.push(f.token);
    },
    onDeposed() {
      fence = undefined;
    },
  });
  return {
    election,
    terms,
    get fence() {
      return fence;
    },
  };
}

/** A separate process campaigning for `name`; resolves once it reports `elected`. */
function child(name: string): { proc: ChildProcess; lines: string[]; elected: Promise<string> } {
  const proc = spawn(
    process.execPath,
    [join(ROOT, "bin/run-ts.mjs"), join(ROOT, "test/fixtures/leader-child.ts"), url, name, "1000"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const lines: string[] = [];
  const elected = new Promise<string>((resolve, reject) => {
    let buf = "";
    proc.stdout!.on("data", (d: Buffer) => {
      buf += d.toString();
      const parts = buf.split("\n");
      buf = parts.pop() ?? "";
      for (const line of parts) {
        lines.push(line);
        if (line.startsWith("elected ")) resolve(line.slice(8));
      }
    });
    proc.on("exit", () => reject(new Error("child exited before it was elected")));
  });
  return { proc, lines, elected };
}

async function until(what: string, ok: () => boolean, timeoutMs: number): Promise<number> {
  const start = Date.now();
  while (!ok()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return Date.now() - start;
}

describe("leader election", () => {
  it("elects one writer per job, and each term has a larger token", async () => {
    const a = candidate("job:one");
    const b = candidate("job:one");
    const other = candidate("job:other");
    await a.election.start();
    await b.election.start();
    await other.election.start();
    try {
      expect(a.fence).toBeDefined();
      expect(b.fence).toBeUndefined();
      expect(other.fence).toBeDefined(); // a different job has its own writer
      await new Promise((r) => setTimeout(r, 400)); // several renewals and campaigns
      expect(a.fence).toBeDefined();
      expect(b.fence).toBeUndefined();

      await a.election.stop(); // a clean handover
      const ms = await until("b elected", () => b.fence !== undefined, 5_000);
      expect(ms).toBeLessThan(1_000);
      expect(BigInt(b.terms[0]!)).toBeGreaterThan(BigInt(a.terms[0]!));
      const lease = await pool.query("SELECT token::text AS token FROM leader_leases WHERE name = 'job:one'");
      expect(lease.rows[0].token).toBe(b.terms[0]);
    } finally {
      await b.election.stop();
      await other.election.stop();
    }
  });

  it("a fenced write under a replaced term is refused and leaves nothing behind", async () => {
    const a = candidate("job:fence");
    await a.election.start();
    const old = a.fence!;
    await a.election.stop();
    const b = candidate("job:fence");
    await b.election.start();
    try {
      await expect(
        fencedTransaction(pool, old, (c) =>
          c.query("INSERT INTO fenced_writes (token) VALUES ($1)", [old.token]),
        ),
      ).rejects.toBeInstanceOf(FencedOutError);
      await fencedTransaction(pool, b.fence, (c) =>
        c.query("INSERT INTO fenced_writes (token) VALUES ($1)", [b.fence!.token]),
      );
      const rows = await pool.query("SELECT token::text AS token FROM fenced_writes");
      expect(rows.rows.map((r) => r.token)).toEqual([b.fence!.token]);
    } finally {
      await b.election.stop();
    }
  });

  it("a killed writer process is replaced within 5 s", async () => {
    const c = child("job:kill");
    const token = await c.elected;
    const b = candidate("job:kill");
    await b.election.start();
    try {
      expect(b.fence).toBeUndefined();
      c.proc.kill("SIGKILL");
      const ms = await until("takeover", () => b.fence !== undefined, 5_000);
      expect(ms).toBeLessThan(5_000);
      expect(BigInt(b.fence!.token)).toBeGreaterThan(BigInt(token));
    } finally {
      c.proc.kill("SIGKILL");
      await b.election.stop();
    }
  }, 20_000);

  it("a hung writer (connected, not renewing) is replaced within 5 s and cannot write when it wakes", async () => {
    await pool.query("TRUNCATE fenced_writes");
    const c = child("job:hang");
    const token = await c.elected;
    await until("the child's first write", () => c.lines.includes(`wrote ${token}`), 5_000);
    const b = candidate("job:hang");
    await b.election.start();
    try {
      expect(b.fence).toBeUndefined();
      c.proc.kill("SIGSTOP"); // its connections stay open and its lock stays held
      const ms = await until("takeover", () => b.fence !== undefined, 5_000);
      expect(ms).toBeLessThan(5_000);
      const mine = b.fence!;
      await fencedTransaction(pool, mine, (cl) =>
        cl.query("INSERT INTO fenced_writes (token) VALUES ($1)", [mine.token]),
      );
      c.proc.kill("SIGCONT");
      await until("the woken child to be fenced", () => c.lines.includes(`fenced ${token}`), 5_000);
      // Every write of the old term happened before the new term's first write.
      const rows = await pool.query<{ id: string; token: string }>(
        "SELECT id::text AS id, token::text AS token FROM fenced_writes ORDER BY id",
      );
      const firstNew = rows.rows.findIndex((r) => r.token === mine.token);
      expect(firstNew).toBeGreaterThan(0);
      expect(rows.rows.slice(firstNew).every((r) => r.token === mine.token)).toBe(true);
      expect(b.fence?.token).toBe(mine.token); // still the writer
    } finally {
      c.proc.kill("SIGKILL");
      await b.election.stop();
    }
  }, 20_000);
});

/**
 * An election whose Postgres goes away: the writer steps down, retries with back-off and logs each
 * change of state once (not every attempt), and is elected again once Postgres is back.
 */
describe("an election during a Postgres outage", () => {
  let proxy: OutageProxy;
  let via: string;
  beforeAll(async () => {
    proxy = await startOutageProxy(url);
    via = proxy.via(url);
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it("logs the outage once, backs off, and is elected again afterwards", async () => {
    const lines: string[] = [];
    let terms = 0;
    const election = new LeaderElection({
      connectionString: via,
      name: "outage:job",
      holder: "replica-a",
      retryMs: 100,
      maxRetryMs: 400,
      log: (line) => lines.push(line),
      onElected: () => {
        terms++;
      },
      onDeposed: () => undefined,
    });
    try {
      await election.start();
      await until("the first term", () => terms === 1, 8_000);
      expect(election.status()).toMatchObject({ role: "writer", term: "1" });
      lines.length = 0;

      await proxy.down();
      await until("stepping down", () => election.current === undefined, 8_000);
      // 1.5 s at 100 ms a try would be 15 attempts: with back-off to 0.4 s, about 5, logged once.
      await new Promise((r) => setTimeout(r, 1_500));
      expect(election.status().role).toBe("follower");
      expect(lines.filter((l) => /election attempts failing/.test(l))).toHaveLength(1);
      expect(lines.length).toBeLessThanOrEqual(3);

      await proxy.up();
      await until("a second term", () => terms === 2, 8_000);
      expect(lines).toContain("outage:job: replica-a elected writer (term 2)");
      expect(lines.filter((l) => /succeed again/.test(l))).toHaveLength(1);
    } finally {
      await election.stop();
    }
  }, 20_000);
});
