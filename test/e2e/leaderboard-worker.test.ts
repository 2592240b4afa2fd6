import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { Agent, fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UserError } from "../../src/core/errors.ts";
import { migrate } from "../../src/db/migrate.ts";
import { createPool, type Pool } from "../../src/db/pool.ts";
import { startRefreshWorker } from "../../src/services/leaderboard/worker-main.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { usePostgres } from "../support/postgres.ts";

/** `hl leaderboard worker` as real processes: Postgres queue, sim world enforcing the per-IP limit. */

const HL = join(import.meta.dirname, "../../bin/hl.mjs");
const AGENTS = ["0x3333333333333333333333333333333333333331", "0x3333333333333333333333333333333333333332"];
const postgres = usePostgres();

let sim: SimWorld;
let pool: Pool;
let databaseUrl: string;

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: databaseUrl,
    HL_API_URL_TESTNET: sim.url,
    HL_API_URL_MAINNET: sim.url,
    HL_API_URL_PAPER: sim.url,
    HL_API_URL: "",
    HL_PRIVATE_KEY: "",
    LEADERBOARD_REFRESH_S: "1",
    LEADERBOARD_AGENT_TIMEOUT_S: "2",
    LEADERBOARD_LEASE_S: "5",
    ...extra,
  };
}

async function startWorker(sourceAddress: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [HL, "leaderboard", "worker", "--source-address", sourceAddress], {
    env: env(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`worker exited (${code})`)));
  });
  return child;
}

async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.kill("SIGTERM");
  return exited;
}

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const rows = async () =>
  (
    await pool.query<{ address: string; account_value: string; stale: boolean; last_error: string | null }>(
      "SELECT address, account_value, stale, last_error FROM leaderboard_agents ORDER BY address",
    )
  ).rows;

beforeAll(async () => {
  sim = await startSimWorld({ historyDays: 0, houseMakers: false, ipWeightLimit: 100 });
  databaseUrl = await postgres.current.freshDatabase();
  pool = createPool(databaseUrl);
  await migrate(pool);
  for (const a of AGENTS) {
    await pool.query(
      `INSERT INTO leaderboard_agents (network, address, display_name, initial_account_value, registered_at,
         account_value) VALUES ('testnet', $1, '', 1, 0, 1)`,
      [a],
    );
  }
});

afterAll(async () => {
  await pool.end();
  await sim.close();
});

describe("hl leaderboard worker", () => {
  it("reaches the exchange from its --source-address: one address over its limit, the next one refreshes", async () => {
    // 127.0.0.2 spends its minute's weight (100) before the worker starts.
    const dispatcher = new Agent({ localAddress: "127.0.0.2" });
    for (let i = 0; i < 50; i++) {
      await undiciFetch(`${sim.url}/info`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ type: "clearinghouseState", user: AGENTS[0] }),
        dispatcher,
      });
    }
    await dispatcher.close();

    const limited = await startWorker("127.0.0.2");
    const refused = await until(rows, (r) => r.every((a) => a.stale), 10_000);
    expect(await stop(limited)).toBe(0);
    for (const a of refused) {
      expect(a).toMatchObject({ stale: true, account_value: "1" });
      expect(a.last_error).toMatch(/rate limited by the exchange/);
    }

    const fresh = await startWorker("127.0.0.3");
    const refreshed = await until(rows, (r) => r.every((a) => !a.stale), 10_000);
    expect(await stop(fresh)).toBe(0);
    for (const a of refreshed)
      expect(a).toMatchObject({ stale: false, account_value: "10000", last_error: null });
    const held = await pool.query("SELECT 1 FROM leaderboard_agents WHERE leased_by IS NOT NULL");
    expect(held.rowCount).toBe(0); // a clean stop gives its agents back
  });

  it("refuses bad settings with one readable line before connecting", async () => {
    const refused = (extra: Record<string, string>, address?: string) =>
      startRefreshWorker(env(extra) as Record<string, string>, address).then(
        () => "started",
        (err: unknown) => (err instanceof UserError ? err.message : String(err)),
      );
    expect(await refused({}, "not-an-ip")).toBe(
      '--source-address must be an IP address of this machine, got "not-an-ip"',
    );
    expect(await refused({ DATABASE_URL: "" })).toBe(
      "DATABASE_URL is not set (postgres://user:password@host:5432/db)",
    );
    expect(await refused({ LEADERBOARD_REFRESH_BY: "cron" })).toBe(
      'LEADERBOARD_REFRESH_BY must be "service" or "workers", got "cron"',
    );
    expect(await refused({ LEADERBOARD_LEASE_S: "3" })).toBe(
      "LEADERBOARD_LEASE_S (3) must be at least twice LEADERBOARD_AGENT_TIMEOUT_S (2)",
    );
  });
});
