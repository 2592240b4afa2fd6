import { afterEach, describe, expect, it } from "vitest";
import { setLogSink } from "../../src/core/log.ts";
import { connectMigrated } from "../../src/db/connect.ts";
import { PgListener } from "../../src/db/notify.ts";
import { createPool } from "../../src/db/pool.ts";
import { listen } from "../../src/http/service.ts";
import type { NetworkAccounts } from "../../src/services/leaderboard/account-source.ts";
import { leaderboardConfig } from "../../src/services/leaderboard/config.ts";
import { serveLeaderboard } from "../../src/services/leaderboard/serve.ts";
import { createLeaderboardService } from "../../src/services/leaderboard/service.ts";
import { freePort, startTestPostgres, type TestPostgres } from "../support/postgres.ts";

/** A service started before its Postgres: it retries (one line per attempt) instead of failing for good. */

const exchange: NetworkAccounts = {
  hip3Dexes: async () => [],
  account: async () => ({
    accountValue: "500",
    positionsCount: 0,
    perDex: [{ dex: "", accountValue: "500", positions: [] }],
  }),
  ledger: async () => [],
  close: async () => undefined,
};

let postgres: TestPostgres | undefined;
afterEach(async () => {
  await postgres?.stop();
  postgres = undefined;
});

async function until(what: string, ok: () => boolean, timeoutMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!ok()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("connecting to a Postgres that is not up yet", () => {
  it("a leaderboard started before Postgres retries its migration and serves once Postgres is up", async () => {
    const port = await freePort();
    const logs: string[] = [];
    const env = {
      DATABASE_URL: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
      DATABASE_CONNECT_TIMEOUT_S: "30",
    };
    const svc = createLeaderboardService(leaderboardConfig(env), {
      source: () => exchange,
      log: (line) => logs.push(line),
    });
    const base = `http://127.0.0.1:${await listen(svc.app, 0)}`;
    try {
      await until("a retry to be logged", () => logs.length >= 1);
      postgres = await startTestPostgres({ port });
      await svc.ready;
      expect(logs[0]).toMatch(
        new RegExp(
          `^postgres 127\\.0\\.0\\.1:${port}/postgres not reachable \\(.*\\); attempt 1, next in [\\d.]+ s$`,
        ),
      );
      for (const line of logs) expect(line).not.toContain("postgres:postgres@"); // no password in logs

      const reg = await fetch(`${base}/api/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ address: `0x${"cd".repeat(20)}` }),
      });
      expect(reg.status).toBe(200);
      const board = (await (await fetch(`${base}/api/leaderboard`)).json()) as { total_agents: number };
      expect(board.total_agents).toBe(1);

      // Reached but refused (a wrong password): not retried, the server's answer at once.
      const refusedLogs: string[] = [];
      const refused = connectMigrated(
        `postgres://postgres:wrong@127.0.0.1:${port}/postgres`,
        { DATABASE_CONNECT_TIMEOUT_S: "30" },
        (line) => refusedLogs.push(line),
      );
      await expect(refused.ready).rejects.toThrow(/password authentication failed/);
      expect(refusedLogs).toEqual([]);
      await refused.pool.end();
    } finally {
      await svc.close();
    }
  }, 30_000);

  it("a LISTEN connection kept up from before Postgres is reachable connects once it is, and resumes its subscribers", async () => {
    const port = await freePort();
    const url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
    const logs: string[] = [];
    const listener = new PgListener({ connectionString: url, retryMs: 50, log: (line) => logs.push(line) });
    const heard: string[] = [];
    let resumed = 0;
    await listener.subscribe(
      "board",
      (payload) => heard.push(payload),
      () => (resumed += 1),
    );
    listener.keepConnected();
    try {
      await until("a failed attempt to be logged", () => logs.length >= 1);
      expect(logs[0]).toMatch(/^listen: connect failed \(.*ECONNREFUSED.*\); retrying with back-off/);
      postgres = await startTestPostgres({ port });
      await until("the listener to resume", () => resumed >= 1);
      // One line when the failing starts and one when it ends, however many attempts in between.
      expect(logs).toEqual([logs[0], "listen: connected again"]);
      const pool = createPool(url, {});
      await pool.query("SELECT pg_notify('board', 'changed')");
      await pool.end();
      await until("the notification", () => heard.length >= 1);
      expect(heard).toEqual(["changed"]);
    } finally {
      await listener.close();
    }
  }, 30_000);

  it("gives up after DATABASE_CONNECT_TIMEOUT_S with one clear error", async () => {
    const port = await freePort();
    const logs: string[] = [];
    const started = Date.now();
    const { pool, ready } = connectMigrated(
      `postgres://hl:secret@127.0.0.1:${port}/hl`,
      { DATABASE_CONNECT_TIMEOUT_S: "1" },
      (line) => logs.push(line),
    );
    await expect(ready).rejects.toThrow(
      new RegExp(
        `^Postgres at 127\\.0\\.0\\.1:${port}/hl not reachable after \\d+ attempts in 1 s: .*ECONNREFUSED`,
      ),
    );
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(logs.length).toBeGreaterThanOrEqual(2);
    expect(logs.join("\n")).not.toContain("secret");
    await pool.end();
  });

  it("hl leaderboard serve never binds without its Postgres: after DATABASE_CONNECT_TIMEOUT_S it fails with that error", async () => {
    const port = await freePort();
    const warnings: string[] = [];
    // Without a host's logger the service logs through its own pino logger, to the process's sink.
    const previous = setLogSink({ write: (line) => warnings.push(line.trimEnd()) });
    const serving = serveLeaderboard(
      { port: "0" },
      {
        env: {
          DATABASE_URL: `postgres://hl:secret@127.0.0.1:${port}/hl`,
          DATABASE_CONNECT_TIMEOUT_S: "0.5",
          HL_API_URL_TESTNET: "http://127.0.0.1:9",
          HL_API_URL_MAINNET: "http://127.0.0.1:9",
        },
        log: (line) => warnings.push(`log: ${line}`),
        warn: (line) => warnings.push(line),
      },
    );
    try {
      await expect(serving).rejects.toThrow(
        /^Postgres at 127\.0\.0\.1:\d+\/hl not reachable after \d+ attempts in 0\.5 s/,
      );
    } finally {
      setLogSink(previous);
      for (const line of warnings) previous.write(`${line}\n`);
    }
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    // One JSON event per line, each a wait for Postgres (never "listening on"), never the password.
    const events = warnings.map((w) => JSON.parse(w) as { event: string; msg: string });
    expect(events.every((e) => e.event === "store_waiting" && e.msg.startsWith("postgres 127.0.0.1:"))).toBe(
      true,
    );
    expect(warnings.join("\n")).not.toContain("secret");
  });
});
