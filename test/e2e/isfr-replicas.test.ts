import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool, type Pool } from "../../src/db/pool.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { usePostgres } from "../support/postgres.ts";
import { spawnReplica } from "../support/replicas.ts";

/** Two `hl isfr serve` processes on one Postgres (DATABASE_URL): kill the writer, the other goes on. */

const postgres = usePostgres();
let sim: SimWorld;
let dir: string;
let pool: Pool;
const procs: ChildProcess[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "isfr-replicas-e2e-"));
  sim = await startSimWorld({ seed: 3, historyDays: 0 });
  const url = await postgres.current.freshDatabase();
  pool = createPool(url);
  const started = [0, 1].map((i) => serve(i, url));
  for (const s of started) procs.push(s.proc);
  urls = await Promise.all(started.map((s) => s.url));
}, 30_000);
afterAll(async () => {
  for (const p of procs) p.kill("SIGKILL");
  await pool.end();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

let urls: string[] = [];

/** Start replica `i`; resolves with its base URL once it prints it. */
function serve(i: number, databaseUrl: string): { proc: ChildProcess; url: Promise<string> } {
  return spawnReplica(
    ["isfr", "serve", "--network", "paper", "--port", "0"],
    {
      DATABASE_URL: databaseUrl,
      HL_REPLICA_NAME: `isfr-${i}`,
      DATA_DIR: join(dir, `r${i}`),
      HL_API_URL: sim.url,
      HL_PRIVATE_KEY: "",
      ISFR_SNAPSHOT_INTERVAL_S: "1",
    },
    /ISFR on (http:\/\/[^/\s]+)\/isfr\//,
  );
}

async function holder(): Promise<string | undefined> {
  const { rows } = await pool.query<{ holder: string }>(
    "SELECT holder FROM leader_leases WHERE name = 'isfr:snapshots'",
  );
  return rows[0]?.holder;
}
const count = async () => Number((await pool.query("SELECT count(*) AS n FROM isfr_snapshots")).rows[0].n);

async function until(what: string, ok: () => Promise<boolean>, timeoutMs = 5_000): Promise<number> {
  const start = Date.now();
  while (!(await ok())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - start;
}

describe("hl isfr serve with DATABASE_URL", () => {
  it("two processes share the snapshots; SIGKILL the writer and the other takes over within 5 s", async () => {
    await until("a first snapshot", async () => (await count()) >= 1, 10_000);
    const writer = await holder();
    expect(["isfr-0", "isfr-1"]).toContain(writer);
    const w = writer === "isfr-0" ? 0 : 1;
    const r = 1 - w;
    for (const url of urls) {
      const res = await fetch(`${url}/isfr/v1/isfr/current`);
      expect(res.status).toBe(200);
    }
    procs[w]!.kill("SIGKILL");
    const took = await until("the other process to take over", async () => (await holder()) === `isfr-${r}`);
    expect(took).toBeLessThan(5_000);
    const before = await count();
    await until("a snapshot by the new writer", async () => (await count()) > before);
    expect((await fetch(`${urls[r]}/isfr/v1/isfr/current`)).status).toBe(200);
  }, 30_000);
});
