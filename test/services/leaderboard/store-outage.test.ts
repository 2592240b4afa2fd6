import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LogFields } from "../../../src/db/log.ts";
import type { AccountReading, NetworkAccounts } from "../../../src/services/leaderboard/account-source.ts";
import { leaderboardConfig } from "../../../src/services/leaderboard/config.ts";
import {
  createLeaderboardService,
  type LeaderboardService,
} from "../../../src/services/leaderboard/service.ts";
import { type OutageProxy, startOutageProxy } from "../../support/outage-proxy.ts";
import { usePostgres } from "../../support/postgres.ts";
import { migrated } from "../../support/replicas.ts";

/**
 * The leaderboard while its Postgres is away: writes answer a logged 503 that names no server,
 * reads keep serving the last board marked stale, /health says so, and all of it recovers by itself.
 * Also: control characters in a display name are refused on both stores.
 */

const postgres = usePostgres();
const dir = mkdtempSync(join(tmpdir(), "lb-outage-"));
let proxy: OutageProxy;
let svc: LeaderboardService;
const logged: (LogFields & { msg: string; level: string })[] = [];

const exchange: NetworkAccounts = {
  hip3Dexes: async () => [],
  account: async (): Promise<AccountReading> => ({
    accountValue: "100",
    positionsCount: 0,
    perDex: [{ dex: "", accountValue: "100", positions: [] }],
  }),
  ledger: async () => [],
  close: async () => undefined,
};

const capture = (level: string) => (fields: LogFields, msg: string) => logged.push({ ...fields, level, msg });
const logger = { info: capture("info"), warn: capture("warn"), error: capture("error") };

beforeAll(async () => {
  const url = await postgres.current.freshDatabase();
  await migrated(url);
  proxy = await startOutageProxy(url);
  const config = leaderboardConfig({
    DATABASE_URL: proxy.via(url),
    LEADERBOARD_DB: join(dir, "unused.db"),
    LEADERBOARD_REFRESH_S: "0.2",
    LEADERBOARD_REGISTER_PER_MIN: "1000",
    LEADERBOARD_REGISTER_BURST: "1000",
  });
  svc = createLeaderboardService(config, { source: () => exchange, logger, env: {} });
  await svc.ready;
  svc.startRefresh();
});
afterAll(async () => {
  await svc?.close();
  await proxy?.close();
  rmSync(dir, { recursive: true, force: true });
});

const register = (address: string, display_name = "") =>
  svc.app.inject({ method: "POST", url: "/api/register", payload: { address, display_name } });

async function until(what: string, ok: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const start = Date.now();
  while (!(await ok())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("leaderboard on Postgres during an outage", () => {
  it("refuses writes with a logged 503, serves the last board marked stale, and recovers", async () => {
    const first = `0x${"a1".repeat(20)}`;
    expect((await register(first, "before")).statusCode).toBe(200);
    await until(
      "the board",
      async () => (await svc.app.inject("/api/leaderboard")).json().total_agents === 1,
    );
    expect((await svc.app.inject("/health")).statusCode).toBe(200);

    await proxy.down();
    const refused = await register(`0x${"a2".repeat(20)}`, "during");
    expect(refused.statusCode).toBe(503);
    expect(refused.json()).toEqual({ error: "store unavailable" });
    expect(refused.body).not.toContain("127.0.0.1");
    expect(refused.body).not.toContain(String(proxy.port));
    expect(logged.some((l) => l.level !== "info" && /store unavailable/.test(l.msg))).toBe(true);
    // From a client the rate limit counts (its bucket is in Postgres too): the same 503.
    const limited = await svc.app.inject({
      method: "POST",
      url: "/api/register",
      payload: { address: `0x${"a4".repeat(20)}` },
      remoteAddress: "203.0.113.9",
    });
    expect(limited.statusCode).toBe(503);
    expect(limited.json()).toEqual({ error: "store unavailable" });

    const read = await svc.app.inject("/api/leaderboard");
    expect(read.statusCode).toBe(200);
    expect(read.json().agents.map((a: { display_name: string }) => a.display_name)).toEqual(["before"]);
    expect(read.headers.warning).toBe('110 - "Response is Stale"');

    const health = await svc.app.inject("/health");
    expect(health.statusCode).toBe(503);
    expect(health.json()).toMatchObject({ store: "down" });
    expect(health.body).not.toContain(String(proxy.port));

    await proxy.up();
    await until("the store back", async () => (await svc.app.inject("/health")).statusCode === 200);
    expect((await register(`0x${"a3".repeat(20)}`, "after")).statusCode).toBe(200);
    await until(
      "the new agent on the board",
      async () => (await svc.app.inject("/api/leaderboard")).json().total_agents === 2,
    );
    expect((await svc.app.inject("/api/leaderboard")).headers.warning).toBeUndefined();
    // The election retries with back-off (up to 5 s) and wins again.
    await until(
      "the writer elected again",
      async () => (await svc.app.inject("/health")).json().writer.role === "writer",
      8_000,
    );
    const health2 = (await svc.app.inject("/health")).json();
    expect(health2).toMatchObject({ store: "ok", writer: { role: "writer" } });
    expect(typeof health2.last_refresh_at).toBe("number");
  }, 20_000);
});

describe("control characters in a display name", () => {
  const names = ["nul\u0000byte", "bell\u0007", "line\nbreak", "del\u007f", "c1\u0085"];
  it.each(names)("are refused with 400 on Postgres: %j", async (name) => {
    const res = await register(`0x${"b1".repeat(20)}`, name);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: "display_name must not contain control characters" });
  });

  it("are refused with 400 on SQLite", async () => {
    const lite = createLeaderboardService(leaderboardConfig({ LEADERBOARD_DB: join(dir, "lite.db") }), {
      source: () => exchange,
    });
    try {
      for (const name of names) {
        const res = await lite.app.inject({
          method: "POST",
          url: "/api/register",
          payload: { address: `0x${"b2".repeat(20)}`, display_name: name },
        });
        expect(res.statusCode, JSON.stringify(name)).toBe(400);
        expect(res.json()).toEqual({ error: "display_name must not contain control characters" });
      }
      const ok = await lite.app.inject({
        method: "POST",
        url: "/api/register",
        payload: { address: `0x${"b2".repeat(20)}`, display_name: "émoji 🐺 ok" },
      });
      expect(ok.statusCode).toBe(200);
    } finally {
      await lite.close();
    }
  });
});
