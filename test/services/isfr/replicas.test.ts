import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool, type Pool } from "../../../src/db/pool.ts";
import { isfrConfig } from "../../../src/services/isfr/config.ts";
import { usePostgres } from "../../support/postgres.ts";
import { startYieldsFixture, type YieldsFixture } from "./fixtures.ts";
import { type IsfrReplicas, startIsfrReplicas } from "./replicas.ts";

const INTERVAL_MS = 1_500;
/** A snapshot's time is taken after its sources answered (up to the 0.3 s source timeout). */
const READ_JITTER_MS = 400;
const postgres = usePostgres();
let yields: YieldsFixture;
let isfr: IsfrReplicas;
let pool: Pool;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "isfr-replicas-"));
  yields = await startYieldsFixture();
  const url = await postgres.current.freshDatabase();
  const config = isfrConfig({
    DATA_DIR: dir,
    YIELDS_API_URL: yields.url,
    ISFR_SOURCE_TIMEOUT_S: "0.3",
    ISFR_SNAPSHOT_INTERVAL_S: String(INTERVAL_MS / 1000),
  });
  const funding = {
    hourlyFunding: async () =>
      new Map([
        ["BTC", "0.0000125"],
        ["ETH", "0.00001"],
      ]),
  };
  isfr = await startIsfrReplicas(url, config, { funding });
  pool = createPool(url);
});
afterAll(async () => {
  await isfr.svc.close();
  await pool.end();
  await yields.close();
  rmSync(dir, { recursive: true, force: true });
});

async function snapshotTimes(): Promise<number[]> {
  const { rows } = await pool.query<{ ts_ms: number }>("SELECT ts_ms FROM isfr_snapshots ORDER BY ts_ms");
  return rows.map((r) => r.ts_ms);
}

async function until(what: string, ok: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const start = Date.now();
  while (!(await ok())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - start;
}

describe("ISFR on two Postgres replicas", () => {
  it("the writer's snapshots go on from the other replica after it dies, on the same cadence, none twice", async () => {
    isfr.svc.startSnapshots();
    await until("two snapshots", async () => (await snapshotTimes()).length >= 2, 5_000);
    const lease = await pool.query<{ holder: string }>(
      "SELECT holder FROM leader_leases WHERE name = 'isfr:snapshots'",
    );
    expect(lease.rows[0]?.holder).toBe("replica-0");

    // The replica that does not write learns of each snapshot through NOTIFY (its metrics show it).
    const gauge = async () =>
      /^isfr_bps(?:\{[^}]*\})? (\S+)$/m.exec(await (await fetch(`${isfr.urls[1]}/metrics`)).text())?.[1];
    await until("the reader's ISFR gauge", async () => Number(await gauge()) > 0, 3_000);

    // A reader answers with what the writer stored.
    const current = await (await fetch(`${isfr.base}/isfr/v1/isfr/current`)).json();
    const again = await (await fetch(`${isfr.base}/isfr/v1/isfr/current`)).json();
    expect(isfr.lb.served.every((n) => n > 0)).toBe(true);
    expect(again).toMatchObject({ version: (current as { version: string }).version });

    // Killed right after a snapshot: a new writer that snapshotted at once would take one too early.
    const stored = (await snapshotTimes()).length;
    await until("the next snapshot", async () => (await snapshotTimes()).length > stored, 5_000);
    const killedAt = Date.now();
    const before = (await snapshotTimes()).length;
    await isfr.kill(0);
    const took = await until(
      "a snapshot by replica 1",
      async () => (await snapshotTimes()).length > before,
      5_000,
    );
    expect(took).toBeLessThan(5_000);
    const holder = await pool.query<{ holder: string }>(
      "SELECT holder FROM leader_leases WHERE name = 'isfr:snapshots'",
    );
    expect(holder.rows[0]?.holder).toBe("replica-1");
    expect((await fetch(`${isfr.base}/isfr/health`)).status).toBe(200);
    await until("two more snapshots", async () => (await snapshotTimes()).length >= before + 2, 5_000);

    // Cadence kept across the handover: no two snapshots closer than the interval (none taken
    // twice), and no gap longer than the interval plus the handover (none skipped).
    const times = await snapshotTimes();
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(INTERVAL_MS - READ_JITTER_MS);
    expect(Math.max(...gaps)).toBeLessThan(INTERVAL_MS + (Date.now() - killedAt));
  }, 20_000);
});
