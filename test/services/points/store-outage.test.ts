import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_BUILDERS, type PointsConfig } from "../../../src/services/points/config.ts";
import { BTCSWP_RULES } from "../../../src/services/points/scoring.ts";
import { type RunningPoints, startPoints } from "../../../src/services/points/server.ts";
import type { DayFiles, FillSource } from "../../../src/services/points/service.ts";
import { type OutageProxy, startOutageProxy } from "../../support/outage-proxy.ts";
import { usePostgres } from "../../support/postgres.ts";
import { migrated } from "../../support/replicas.ts";

/**
 * The points API while its Postgres is away: a wallet looked up before answers its last result marked
 * stale, another one a logged 503 that names no server (never a 502 blaming the exchange), /health
 * says so, and lookups recover by themselves.
 */

const T0 = Date.UTC(2026, 6, 1);
const KNOWN = `0x${"31".repeat(20)}`;
const UNKNOWN = `0x${"32".repeat(20)}`;
const postgres = usePostgres();
let proxy: OutageProxy;
let points: RunningPoints;
const events: { level: string; msg: string; event?: unknown }[] = [];

const source: FillSource = {
  now: async () => T0,
  fills: async () => [],
  maxBuilderFee: async () => 0,
};
const noFiles: DayFiles = { day: async () => null };
const capture = (level: string) => (fields: Record<string, unknown>, msg: string) =>
  events.push({ ...fields, level, msg });

beforeAll(async () => {
  const direct = await postgres.current.freshDatabase();
  await migrated(direct);
  proxy = await startOutageProxy(direct);
  const cfg: PointsConfig = {
    port: 0,
    host: "127.0.0.1",
    dbPath: "",
    databaseUrl: proxy.via(direct),
    coin: "yex:BTCSWP",
    market: "BTCSWP",
    rules: BTCSWP_RULES,
    builders: [...DEFAULT_BUILDERS],
    statsUrl: "http://127.0.0.1:9/unused",
    statsNetwork: "Testnet",
    missingFileRetryMs: 0,
    programStartMs: 0,
    markToleranceMs: 60_000,
    feedUrl: "http://127.0.0.1:9",
    cacheMs: 0,
    followMs: 100,
    provisionalDays: 1,
  };
  points = await startPoints(cfg, {
    fills: source,
    files: noFiles,
    env: {},
    log: () => undefined,
    logger: { info: capture("info"), warn: capture("warn"), error: capture("error") },
  });
});
afterAll(async () => {
  await points?.close();
  await proxy?.close();
});

const lookup = (wallet: string) => fetch(`${points.url}/points/market-address/${wallet}`);

async function until(what: string, ok: () => Promise<boolean>, timeoutMs = 8_000): Promise<void> {
  const start = Date.now();
  while (!(await ok())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("points on Postgres during an outage", () => {
  it("answers the last result marked stale or a logged 503, never a 502 or an address; recovers", async () => {
    const before = await lookup(KNOWN);
    expect(before.status).toBe(200);
    const fresh = (await before.json()) as Record<string, unknown>;
    expect(fresh).not.toHaveProperty("stale");

    await proxy.down();
    const stale = await lookup(KNOWN);
    expect(stale.status).toBe(200);
    expect(await stale.json()).toEqual({ ...fresh, stale: true });

    const refused = await lookup(UNKNOWN);
    const body = await refused.text();
    expect(refused.status).toBe(503);
    expect(JSON.parse(body)).toEqual({ error: "store unavailable" });
    expect(body).not.toContain(String(proxy.port));
    expect(events.some((e) => e.level === "warn" && /store unavailable/.test(e.msg))).toBe(true);

    const health = await fetch(`${points.url}/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ store: "down" });

    await proxy.up();
    await until("lookups to recover", async () => (await lookup(UNKNOWN)).status === 200);
    expect(await (await lookup(KNOWN)).json()).not.toHaveProperty("stale");
    await until("the sync writer elected again", async () => {
      const h = (await (await fetch(`${points.url}/health`)).json()) as { writer: { role: string } };
      return h.writer.role === "writer";
    });
    // One line when the store went away and one when it came back, however many operations failed.
    expect(events.filter((e) => e.event === "store_down")).toHaveLength(1);
    expect(events.filter((e) => e.event === "store_up")).toHaveLength(1);
  }, 20_000);
});
