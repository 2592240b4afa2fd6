import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool } from "../../../src/db/pool.ts";
import { DEFAULT_BUILDERS, type PointsConfig } from "../../../src/services/points/config.ts";
import { BTCSWP_RULES } from "../../../src/services/points/scoring.ts";
import { type RunningPoints, startPoints } from "../../../src/services/points/server.ts";
import type { DayFiles, FillSource } from "../../../src/services/points/service.ts";
import { usePostgres } from "../../support/postgres.ts";
import { migrated } from "../../support/replicas.ts";

const WALLET = `0x${"12".repeat(20)}`;
const T0 = Date.UTC(2026, 6, 1);

/** Each replica asks the exchange through its own source, so the test sees who synced. */
function countingSource() {
  const source = {
    calls: 0,
    async now() {
      return T0;
    },
    async fills() {
      source.calls++;
      return [];
    },
    async maxBuilderFee() {
      return 0;
    },
  } satisfies FillSource & { calls: number };
  return source;
}

const noFiles: DayFiles = { day: async () => null };
const postgres = usePostgres();
const sources = [countingSource(), countingSource()];
const replicas: { points: RunningPoints; open: boolean }[] = [];

const baseConfig: PointsConfig = {
  port: 0,
  host: "127.0.0.1",
  dbPath: "",
  coin: "yex:BTCSWP",
  market: "BTCSWP",
  rules: BTCSWP_RULES,
  builders: [...DEFAULT_BUILDERS],
  statsUrl: "http://127.0.0.1:9/unused",
  statsNetwork: "Testnet",
  missingFileRetryMs: 0,
  programStartMs: 0,
  markToleranceMs: 60_000,
  feedUrl: "http://127.0.0.1:9", // no feed: marks play no part here
  cacheMs: 0,
  followMs: 100,
  provisionalDays: 1,
};

beforeAll(async () => {
  const databaseUrl = await postgres.current.freshDatabase();
  await migrated(databaseUrl);
  const cfg: PointsConfig = { ...baseConfig, databaseUrl };
  for (const fills of sources) {
    const points = await startPoints(cfg, { fills, files: noFiles, log: () => undefined });
    replicas.push({ points, open: true });
    await new Promise((r) => setTimeout(r, 300)); // the first replica campaigns first
  }
});
afterAll(async () => {
  for (const r of replicas) if (r.open) await r.points.close();
});

async function untilAsync(what: string, ok: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const start = Date.now();
  while (!(await ok())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function until(what: string, ok: () => boolean, timeoutMs = 5_000): Promise<number> {
  const start = Date.now();
  while (!ok()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return Date.now() - start;
}

describe("points on two Postgres replicas", () => {
  it("one replica syncs the known wallets; when it dies the other takes the syncs over within 5 s", async () => {
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    // A lookup on the second replica makes the wallet known (that request syncs it there, once).
    const res = await fetch(`${b.points.url}/points/market-address/${WALLET}`);
    expect(res.status).toBe(200);
    const bAfterLookup = sources[1]!.calls;
    const aBefore = sources[0]!.calls;
    await until("the elected replica's periodic sync", () => sources[0]!.calls >= aBefore + 3);
    expect(sources[1]!.calls).toBe(bAfterLookup); // the other replica does not sync on its own

    await a.points.close();
    a.open = false;
    const took = await until(
      "the other replica's periodic sync",
      () => sources[1]!.calls >= bAfterLookup + 2,
    );
    expect(took).toBeLessThan(5_000);
  }, 20_000);

  it("a deposed writer's sync is refused: nothing it read before losing the job is recorded", async () => {
    const databaseUrl = await postgres.current.freshDatabase();
    await migrated(databaseUrl);
    const pool = createPool(databaseUrl);
    const fill = {
      tid: 7,
      time: T0 + 1_000,
      coin: "yex:BTCSWP",
      side: "B" as const,
      px: "1",
      sz: "1",
      crossed: false,
    };
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let waiting = 0;
    let served = false;
    // The exchange as the stale writer saw it: the fill is read once, while the writer still held the job.
    const stale: FillSource = {
      now: async () => T0,
      async fills() {
        if (served) return [];
        served = true;
        waiting++;
        await gate;
        return [fill];
      },
      maxBuilderFee: async () => 0,
    };
    const logs: string[] = [];
    const a = await startPoints(
      { ...baseConfig, databaseUrl, followMs: 50 },
      { fills: stale, files: noFiles, log: (line) => logs.push(line) },
    );
    try {
      await a.store.recordSync(WALLET, [], T0, null); // a wallet being followed
      await until("the writer's sync to wait on the exchange", () => waiting > 0);
      // Its election connection is cut: the job is free and is taken again (a new term).
      await pool.query(
        "SELECT pg_terminate_backend(backend_pid) FROM leader_leases WHERE name = 'points:sync'",
      );
      await untilAsync("a new term", async () => {
        const { rows } = await pool.query<{ token: number }>(
          "SELECT token FROM leader_leases WHERE name = 'points:sync'",
        );
        return (rows[0]?.token ?? 0) >= 2;
      });
      release();
      const stored = async () =>
        (await pool.query("SELECT tid FROM points_wallet_fills WHERE wallet = $1", [WALLET])).rows;
      const refused = () => logs.some((l) => /no longer the elected writer/.test(l));
      await untilAsync(
        "the stale write to land or be refused",
        async () => refused() || (await stored()).length > 0,
      );
      expect(await stored()).toEqual([]);
    } finally {
      release();
      await a.close();
      await pool.end();
    }
  }, 20_000);
});
