import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { importSqlite, importSummary, sqliteFiles } from "../../src/db/import/run.ts";
import { migrate } from "../../src/db/migrate.ts";
import { createPool, type Pool } from "../../src/db/pool.ts";
import { PostgresAgentStore } from "../../src/services/leaderboard/pg-store.ts";
import { SqliteAgentStore } from "../../src/services/leaderboard/store.ts";
import { FillHistory, type SourceFill } from "../../src/services/points/fill-history.ts";
import { PostgresPointsStore } from "../../src/services/points/pg-store.ts";
import { SqlitePointsStore } from "../../src/services/points/store.ts";
import { usePostgres } from "../support/postgres.ts";

/** `hl db import`'s work: a SQLite deployment written by the services, copied into Postgres. */

const postgres = usePostgres();
const root = mkdtempSync(join(tmpdir(), "hl-db-import-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const pools: Pool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.end()));
});

const WALLET = "0x00000000000000000000000000000000000000a1";
const env = (dataDir: string): NodeJS.ProcessEnv => ({ DATA_DIR: dataDir });

/** The ISFR and feeds SQLite schemas, as their services create them. */
const ISFR_SQLITE = [
  "CREATE TABLE snapshots (ts_ms INTEGER PRIMARY KEY, published INTEGER NOT NULL, rate TEXT, body TEXT NOT NULL)",
  `CREATE TABLE source_state (source_id TEXT PRIMARY KEY, rate TEXT, observed_at_ms INTEGER,
     last_attempt_ms INTEGER NOT NULL, last_error TEXT)`,
];
const FEEDS_SQLITE = [
  "CREATE TABLE feed_meta (feed TEXT PRIMARY KEY, inception_ms INTEGER NOT NULL)",
  `CREATE TABLE feed_state (feed TEXT PRIMARY KEY, cumulative TEXT NOT NULL, k TEXT NOT NULL,
     settled_through_ms INTEGER NOT NULL)`,
  "CREATE TABLE feed_hours (feed TEXT NOT NULL, hour_end_ms INTEGER NOT NULL, rate TEXT NOT NULL, PRIMARY KEY (feed, hour_end_ms))",
  "CREATE TABLE feed_ticks (feed TEXT NOT NULL, ts INTEGER NOT NULL, tick TEXT NOT NULL, PRIMARY KEY (feed, ts))",
];
/** Their Postgres tables (the replicated services' migrations create the same; kept if already there). */
const ISFR_FEEDS_POSTGRES = [
  `CREATE TABLE IF NOT EXISTS isfr_snapshots (ts_ms BIGINT PRIMARY KEY, published BOOLEAN NOT NULL, rate TEXT,
     body TEXT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS isfr_source_state (source_id TEXT PRIMARY KEY, rate TEXT, observed_at_ms BIGINT,
     last_attempt_ms BIGINT NOT NULL, last_error TEXT)`,
  "CREATE TABLE IF NOT EXISTS feed_meta (feed TEXT PRIMARY KEY, inception_ms BIGINT NOT NULL)",
  `CREATE TABLE IF NOT EXISTS feed_state (feed TEXT PRIMARY KEY, cumulative TEXT NOT NULL, k TEXT NOT NULL,
     settled_through_ms BIGINT NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS feed_hours (feed TEXT NOT NULL, hour_end_ms BIGINT NOT NULL, rate TEXT NOT NULL,
     PRIMARY KEY (feed, hour_end_ms))`,
  `CREATE TABLE IF NOT EXISTS feed_ticks (feed TEXT NOT NULL, ts BIGINT NOT NULL, tick TEXT NOT NULL,
     PRIMARY KEY (feed, ts))`,
];

/** A data dir as the four services leave it: agents, marks, 2,500 fills, snapshots, feed history. */
async function writeDeployment(): Promise<string> {
  const dataDir = mkdtempSync(join(root, "data-"));
  const files = sqliteFiles(env(dataDir));
  const agents = new SqliteAgentStore(files.leaderboard);
  for (let i = 0; i < 30; i++) {
    const address = `0x${(i + 1).toString(16).padStart(40, "0")}`;
    await agents.insert({
      network: i % 3 === 0 ? "mainnet" : "testnet",
      address,
      displayName: i === 0 ? "ünïcödé 🚀 'quoted'" : `agent-${i}`,
      initialAccountValue: `${1000 + i}.123456789`,
      registeredAt: 1_700_000_000_000 + i,
      ledgerMark: i % 2 === 0 ? { timeMs: 1_699_000_000_000 + i, hashes: [`0x${i}`] } : null,
      positionsCount: i % 4,
    });
    if (i % 5 === 0) await agents.recordFailure(i % 3 === 0 ? "mainnet" : "testnet", address, "no answer");
    else
      await agents.recordSuccess(i % 3 === 0 ? "mainnet" : "testnet", address, {
        accountValue: `-${i}.5`,
        positionsCount: 1,
        netDeposits: "0.000001",
        at: 1_700_000_045_000 + i,
      });
  }
  await agents.close();

  const points = new SqlitePointsStore(files.points);
  await points.addMarks(
    Array.from({ length: 300 }, (_, i) => ({ ts: 1_000 + i * 30_000, px: `7500${i % 10}.000001` })),
  );
  const fills: SourceFill[] = Array.from({ length: 2_500 }, (_, i) => ({
    tid: 10_000_000_000 + i,
    time: 1_000 + i,
    coin: "BTCSWP",
    side: i % 2 === 0 ? "B" : "A",
    px: "75012.5",
    sz: "0.00012",
    crossed: i % 3 === 0,
    ...(i % 7 === 0 ? { builderFee: "0.0000123" } : {}),
  }));
  await new FillHistory(points, "BTCSWP").sync(WALLET, async () => fills, 0);
  await points.close();

  mkdirSync(join(files.isfr, ".."), { recursive: true });
  const isfr = new Database(files.isfr);
  for (const s of ISFR_SQLITE) isfr.exec(s);
  isfr.exec("BEGIN");
  for (let i = 0; i < 48; i++)
    isfr
      .prepare("INSERT INTO snapshots VALUES (?, ?, ?, ?)")
      .run(i * 3_600_000, i % 4 === 0 ? 0 : 1, i % 5 === 0 ? null : `0.0${i}`, JSON.stringify({ tMs: i }));
  isfr.prepare("INSERT INTO source_state VALUES ('hl-funding', '0.1', 5, 6, NULL)").run();
  isfr.prepare("INSERT INTO source_state VALUES ('aave', NULL, NULL, 7, 'timeout')").run();
  isfr.exec("COMMIT");
  isfr.close();

  mkdirSync(join(files.feeds, ".."), { recursive: true });
  const feeds = new Database(files.feeds);
  for (const s of FEEDS_SQLITE) feeds.exec(s);
  feeds.exec("BEGIN");
  for (const feed of ["btcswp", "ethswp"]) {
    feeds.prepare("INSERT INTO feed_meta VALUES (?, ?)").run(feed, 1_000);
    feeds
      .prepare("INSERT INTO feed_state VALUES (?, ?, ?, ?)")
      .run(feed, "0.000012345678901234567890", "0.1", 7_200_000);
    for (let h = 1; h <= 24; h++)
      feeds.prepare("INSERT INTO feed_hours VALUES (?, ?, ?)").run(feed, h * 3_600_000, `0.00${h}`);
    for (let t = 0; t < 500; t++)
      feeds
        .prepare("INSERT INTO feed_ticks VALUES (?, ?, ?)")
        .run(feed, t * 30_000, JSON.stringify({ feed, t }));
  }
  feeds.exec("COMMIT");
  feeds.close();
  return dataDir;
}

async function freshPool(withIsfrFeeds = true): Promise<Pool> {
  const pool = createPool(await postgres.current.freshDatabase());
  pools.push(pool);
  await migrate(pool);
  if (withIsfrFeeds) for (const s of ISFR_FEEDS_POSTGRES) await pool.query(s);
  return pool;
}

const sqliteRows = (file: string, sql: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
};

/** Written once: every import reads it without changing it. */
let shared: string;
beforeAll(async () => {
  shared = await writeDeployment();
});
const deployment = async () => shared;

describe("hl db import", () => {
  it("copies every table, row for row and value for value, and verifies the counts", async () => {
    const dataDir = await deployment();
    const files = sqliteFiles(env(dataDir));
    const pool = await freshPool();
    const results = await importSqlite(pool, env(dataDir));
    const { lines, ok } = importSummary(results);
    expect(ok, lines.join("\n")).toBe(true);
    const counts = Object.fromEntries(
      results.flatMap((r) => r.tables.map((t) => [t.to, [t.sqliteRows, t.added]])),
    );
    expect(counts).toEqual({
      leaderboard_agents: [30, 30],
      points_marks: [300, 300],
      points_wallet_fills: [2_500, 2_500],
      points_wallet_sync: [1, 1],
      isfr_snapshots: [48, 48],
      isfr_source_state: [2, 2],
      feed_meta: [2, 2],
      feed_state: [2, 2],
      feed_hours: [48, 48],
      feed_ticks: [1_000, 1_000],
    });
    expect(lines).toContain(
      "  wallet_fills -> points_wallet_fills: sqlite 2500, copied 2500 (2500 new), postgres 2500  ok",
    );

    // Read back through the stores: what the Postgres services will serve is what SQLite held.
    const sqliteAgents = new SqliteAgentStore(files.leaderboard);
    const pgAgents = new PostgresAgentStore(pool);
    for (const network of ["testnet", "mainnet"] as const) {
      const byAddress = (rows: { address: string }[]) =>
        [...rows].sort((a, b) => a.address.localeCompare(b.address));
      expect(byAddress(await pgAgents.list(network))).toEqual(byAddress(await sqliteAgents.list(network)));
    }
    await sqliteAgents.close();
    const sqlitePoints = new SqlitePointsStore(files.points);
    const pgPoints = new PostgresPointsStore(pool);
    expect(await pgPoints.fillsSince(WALLET, 0)).toEqual(await sqlitePoints.fillsSince(WALLET, 0));
    expect(await pgPoints.walletSync(WALLET)).toEqual(await sqlitePoints.walletSync(WALLET));
    const times = Array.from({ length: 50 }, (_, i) => i * 200_000);
    expect(await pgPoints.marksAt(times, 60_000)).toEqual(await sqlitePoints.marksAt(times, 60_000));
    await sqlitePoints.close();

    const pgSnapshots = await pool.query(
      "SELECT ts_ms, CASE WHEN published THEN 1 ELSE 0 END AS published, rate, body FROM isfr_snapshots ORDER BY ts_ms",
    );
    expect(pgSnapshots.rows).toEqual(sqliteRows(files.isfr, "SELECT * FROM snapshots ORDER BY ts_ms"));
    const pgTicks = await pool.query("SELECT feed, ts, tick FROM feed_ticks ORDER BY feed, ts");
    expect(pgTicks.rows).toEqual(sqliteRows(files.feeds, "SELECT * FROM feed_ticks ORDER BY feed, ts"));
    const pgState = await pool.query("SELECT * FROM feed_state ORDER BY feed");
    expect(pgState.rows).toEqual(sqliteRows(files.feeds, "SELECT * FROM feed_state ORDER BY feed"));
  });

  it("a second run adds nothing and still verifies; rows Postgres gained meanwhile are kept", async () => {
    const dataDir = await deployment();
    const pool = await freshPool();
    await importSqlite(pool, env(dataDir));
    // The Postgres deployment went on: a new registration and a newer refresh of an imported agent.
    const pgAgents = new PostgresAgentStore(pool);
    await pgAgents.insert({
      network: "testnet",
      address: `0x${"f".repeat(40)}`,
      displayName: "new",
      initialAccountValue: "1",
      registeredAt: 1,
      ledgerMark: null,
      positionsCount: 0,
    });
    const refreshed = `0x${(2).toString(16).padStart(40, "0")}`;
    await pgAgents.recordSuccess("testnet", refreshed, {
      accountValue: "999",
      positionsCount: 0,
      netDeposits: "0",
      at: 2,
    });

    const again = await importSqlite(pool, env(dataDir));
    const { ok, lines } = importSummary(again);
    expect(ok, lines.join("\n")).toBe(true);
    expect(again.flatMap((r) => r.tables).every((t) => t.added === 0 && t.present === t.sqliteRows)).toBe(
      true,
    );
    expect(lines).toContain("  agents -> leaderboard_agents: sqlite 30, copied 30 (0 new), postgres 31  ok");
    expect((await pgAgents.get("testnet", refreshed))?.accountValue).toBe("999");
  });

  it("a table Postgres cannot hold is a mismatch, not a silent loss", async () => {
    const dataDir = await deployment();
    const pool = await freshPool();
    await pool.query("DROP TABLE isfr_source_state");
    const { ok, lines } = importSummary(await importSqlite(pool, env(dataDir)));
    expect(ok).toBe(false);
    expect(lines).toContain(
      "  source_state -> isfr_source_state: sqlite 2, copied 0 (0 new), postgres 0  MISMATCH: Postgres has no table isfr_source_state",
    );
    expect(lines.at(-1)).toBe("import NOT verified: row counts differ");
  });

  it("a data dir without some services' files imports what is there", async () => {
    const dataDir = mkdtempSync(join(root, "partial-"));
    const agents = new SqliteAgentStore(sqliteFiles(env(dataDir)).leaderboard);
    await agents.close(); // the file and its empty table exist
    const pool = await freshPool(false);
    const results = await importSqlite(pool, env(dataDir));
    const { ok, lines } = importSummary(results);
    expect(ok).toBe(true);
    expect(results.map((r) => [r.service, r.found])).toEqual([
      ["leaderboard", true],
      ["points", false],
      ["isfr", false],
      ["feeds", false],
    ]);
    expect(lines[0]).toBe(`leaderboard: ${join(dataDir, "leaderboard.db")}`);
    expect(lines[1]).toBe("  agents -> leaderboard_agents: sqlite 0, copied 0 (0 new), postgres 0  ok");
    expect(lines[2]).toBe(
      `points: no SQLite file at ${join(dataDir, "points", "points.db")}, nothing to import`,
    );
  });

  it("finds each file where its service would: under DATA_DIR, unless the service's own variable names it", () => {
    expect(sqliteFiles({ DATA_DIR: "/d" })).toEqual({
      leaderboard: "/d/leaderboard.db",
      points: "/d/points/points.db",
      isfr: "/d/isfr.db",
      feeds: "/d/feeds/feeds.db",
    });
    expect(
      sqliteFiles({
        DATA_DIR: "/d",
        LEADERBOARD_DB: "/x/lb.db",
        POINTS_DB: "/x/p.db",
        ISFR_DB: "/x/i.db",
        FEEDS_DB: "/x/f.db",
      }),
    ).toEqual({ leaderboard: "/x/lb.db", points: "/x/p.db", isfr: "/x/i.db", feeds: "/x/f.db" });
  });

  it("a SQLite column the import does not carry is a mismatch, not a silent loss", async () => {
    const dataDir = mkdtempSync(join(root, "extra-column-"));
    const file = sqliteFiles(env(dataDir)).leaderboard;
    const agents = new SqliteAgentStore(file);
    await agents.close();
    const db = new Database(file);
    db.exec("ALTER TABLE agents ADD COLUMN nickname TEXT");
    db.close();
    const pool = await freshPool(false);
    const { ok, lines } = importSummary(await importSqlite(pool, env(dataDir)));
    expect(ok).toBe(false);
    expect(lines[1]).toBe(
      "  agents -> leaderboard_agents: sqlite 0, copied 0 (0 new), postgres 0  MISMATCH: SQLite column nickname not imported",
    );
  });
});
