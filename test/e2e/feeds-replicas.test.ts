import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool, type Pool } from "../../src/db/pool.ts";
import { feedTickSchema } from "../../src/services/feeds/tick.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { usePostgres } from "../support/postgres.ts";
import { spawnReplica } from "../support/replicas.ts";

/** Two `hl feeds serve` processes on one Postgres (DATABASE_URL): SIGKILL the writer, the other goes on. */

const postgres = usePostgres();
let sim: SimWorld;
let dir: string;
let pool: Pool;
const procs: ChildProcess[] = [];
let btc: string[] = [];

/** Start replica `i`; resolves with its BTCSWP origin URL once it prints it. */
function serve(i: number, databaseUrl: string): { proc: ChildProcess; url: Promise<string> } {
  return spawnReplica(
    ["feeds", "serve", "--network", "paper", "--port", "0"],
    {
      DATABASE_URL: databaseUrl,
      HL_REPLICA_NAME: `feeds-${i}`,
      DATA_DIR: join(dir, `r${i}`),
      HL_API_URL: sim.url,
      HL_PRIVATE_KEY: "",
      FEEDS_POLL_MS: "200",
      FEEDS_MAX_SILENCE_MS: "200",
    },
    /btcswp feed on (http:\/\/\S+)/,
  );
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "feeds-replicas-e2e-"));
  sim = await startSimWorld({ seed: 3, historyDays: 0 });
  const url = await postgres.current.freshDatabase();
  pool = createPool(url);
  const started = [0, 1].map((i) => serve(i, url));
  for (const s of started) procs.push(s.proc);
  btc = await Promise.all(started.map((s) => s.url));
}, 30_000);
afterAll(async () => {
  for (const p of procs) p.kill("SIGKILL");
  await pool.end();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

async function holder(): Promise<string | undefined> {
  const { rows } = await pool.query<{ holder: string }>(
    "SELECT holder FROM leader_leases WHERE name = 'feeds:BTCSWP'",
  );
  return rows[0]?.holder;
}
const ticks = async () =>
  Number((await pool.query("SELECT count(*) AS n FROM feed_ticks WHERE feed = 'BTCSWP'")).rows[0].n);

async function until(what: string, ok: () => Promise<boolean>, timeoutMs = 5_000): Promise<number> {
  const start = Date.now();
  while (!(await ok())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - start;
}

describe("hl feeds serve with DATABASE_URL", () => {
  it("two processes serve one feed history; SIGKILL the writer and the other publishes within 5 s", async () => {
    await until("a first tick", async () => (await ticks()) >= 1, 10_000);
    const writer = await holder();
    const w = writer === "feeds-0" ? 0 : 1;
    const r = 1 - w;
    const [a, b] = await Promise.all(
      btc.map(async (u) => feedTickSchema.parse(await (await fetch(`${u}/api/latest`)).json())),
    );
    expect(a!.feed).toBe("BTCSWP");
    expect(b!.feed).toBe("BTCSWP");

    procs[w]!.kill("SIGKILL");
    const took = await until(
      "the other process to write BTCSWP",
      async () => (await holder()) === `feeds-${r}`,
    );
    expect(took).toBeLessThan(5_000);
    const before = await ticks();
    await until("a tick by the new writer", async () => (await ticks()) > before);
    const latest = feedTickSchema.parse(await (await fetch(`${btc[r]}/api/latest`)).json());
    expect(latest.feed).toBe("BTCSWP");
  }, 30_000);
});
