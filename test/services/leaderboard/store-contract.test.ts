import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { openAgentStore } from "../../../src/services/leaderboard/open-store.ts";
import { PostgresAgentStore } from "../../../src/services/leaderboard/pg-store.ts";
import { type AgentStore, type NewAgent, SqliteAgentStore } from "../../../src/services/leaderboard/store.ts";
import { usePostgres } from "../../support/postgres.ts";

/** The same contract for both stores: what SQLite does today, Postgres must do too. */

const postgres = usePostgres();
const dir = mkdtempSync(join(tmpdir(), "hl-agent-store-"));
let opened: AgentStore[] = [];
afterEach(async () => {
  await Promise.all(opened.map((s) => s.close()));
  opened = [];
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
const kinds: [string, () => Promise<AgentStore>][] = [
  ["SQLite", async () => new SqliteAgentStore(join(dir, `agents-${++files}.db`))],
  ["Postgres", async () => PostgresAgentStore.connect(await postgres.current.freshDatabase())],
];

const ALICE = "0x1111111111111111111111111111111111111111";
const BOB = "0x2222222222222222222222222222222222222222";

const agent = (over: Partial<NewAgent> = {}): NewAgent => ({
  network: "testnet",
  address: ALICE,
  displayName: "alice 🦊",
  initialAccountValue: "1000.123456789012345678",
  registeredAt: 1_700_000_000_123,
  ledgerMark: { timeMs: 1_699_999_999_000, hashes: ["0xabc", "0xdef"] },
  positionsCount: 2,
  ...over,
});

describe.each(kinds)("leaderboard agent store on %s", (_kind, open) => {
  const fresh = async () => {
    const s = await open();
    opened.push(s);
    return s;
  };

  it("hands out the agents changed since a cursor: registrations, refreshes and failures", async () => {
    const store = await fresh();
    await store.insert(agent());
    const snap = await store.snapshot("testnet");
    expect(snap.rows.map((r) => r.address)).toEqual([ALICE]);
    expect((await store.changesSince("testnet", snap.cursor)).rows).toEqual([]);
    await store.insert(agent({ address: BOB }));
    await store.insert(agent({ network: "mainnet", address: BOB }));
    const added = await store.changesSince("testnet", snap.cursor);
    expect(added.rows.map((r) => r.address)).toEqual([BOB]);
    await store.recordSuccess("testnet", ALICE, {
      accountValue: "5",
      positionsCount: 0,
      netDeposits: "0",
      at: 9,
    });
    const refreshed = await store.changesSince("testnet", added.cursor);
    expect(refreshed.rows.map((r) => [r.address, r.accountValue])).toEqual([[ALICE, "5"]]);
    await store.recordFailure("testnet", BOB, "down");
    const failed = await store.changesSince("testnet", refreshed.cursor);
    expect(failed.rows.map((r) => [r.address, r.stale])).toEqual([[BOB, true]]);
  });

  it("inserts once, keeps the baseline exactly, and reads it back as registered", async () => {
    const store = await fresh();
    expect(await store.insert(agent())).toBe(true);
    expect(await store.insert(agent({ displayName: "impostor", initialAccountValue: "1" }))).toBe(false);
    expect(await store.get("testnet", ALICE)).toEqual({
      network: "testnet",
      address: ALICE,
      displayName: "alice 🦊",
      initialAccountValue: "1000.123456789012345678",
      registeredAt: 1_700_000_000_123,
      ledgerMark: { timeMs: 1_699_999_999_000, hashes: ["0xabc", "0xdef"] },
      accountValue: "1000.123456789012345678",
      positionsCount: 2,
      netDeposits: "0",
      refreshedAt: 1_700_000_000_123,
      stale: false,
      lastError: null,
      tracking: null,
    });
    expect(await store.get("mainnet", ALICE)).toBeUndefined();
  });

  it("keeps the refresh tracking given at registration and at each success", async () => {
    const store = await fresh();
    const tracking = {
      dexes: ["xyz"],
      cursor: { timeMs: 5, hashes: ["0xa"] },
      anchor: "10000.5",
      signature: "|ETH|1|3000",
      scannedAt: 7,
    };
    await store.insert(agent({ tracking }));
    expect((await store.get("testnet", ALICE))?.tracking).toEqual(tracking);
    const next = { ...tracking, dexes: [], anchor: "9000" };
    await store.recordSuccess("testnet", ALICE, {
      accountValue: "9000",
      positionsCount: 0,
      netDeposits: "0",
      at: 9,
      tracking: next,
    });
    expect((await store.list("testnet"))[0]?.tracking).toEqual(next);
  });

  it("keeps networks apart and counts and lists per network", async () => {
    const store = await fresh();
    await store.insert(agent());
    await store.insert(agent({ address: BOB, registeredAt: 1_700_000_000_200, ledgerMark: null }));
    await store.insert(agent({ network: "mainnet" }));
    expect(await store.count("testnet")).toBe(2);
    expect(await store.count("mainnet")).toBe(1);
    expect(await store.count("paper")).toBe(0);
    const listed = await store.list("testnet");
    expect(listed.map((a) => a.address).sort()).toEqual([ALICE, BOB]);
    expect(listed.find((a) => a.address === BOB)?.ledgerMark).toBeNull();
  });

  it("a success replaces the last known values and clears stale; a failure keeps them and marks stale", async () => {
    const store = await fresh();
    await store.insert(agent());
    await store.recordFailure("testnet", ALICE, "no answer within 10000 ms");
    expect(await store.get("testnet", ALICE)).toMatchObject({
      stale: true,
      lastError: "no answer within 10000 ms",
      accountValue: "1000.123456789012345678",
    });
    await store.recordSuccess("testnet", ALICE, {
      accountValue: "-0.5",
      positionsCount: 0,
      netDeposits: "250.000001",
      at: 1_700_000_045_000,
    });
    expect(await store.get("testnet", ALICE)).toMatchObject({
      stale: false,
      lastError: null,
      accountValue: "-0.5",
      netDeposits: "250.000001",
      positionsCount: 0,
      refreshedAt: 1_700_000_045_000,
      initialAccountValue: "1000.123456789012345678",
    });
    // Updating an address that was never registered changes nothing.
    await store.recordSuccess("testnet", BOB, {
      accountValue: "1",
      positionsCount: 0,
      netDeposits: "0",
      at: 1,
    });
    expect(await store.count("testnet")).toBe(1);
  });

  it("two registrations of one address racing: exactly one inserts", async () => {
    const store = await fresh();
    const results = await Promise.all([store.insert(agent()), store.insert(agent({ displayName: "other" }))]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await store.count("testnet")).toBe(1);
  });
});

describe("changes on Postgres", () => {
  it("a change committed after a later one is read next time, not skipped", async () => {
    const url = await postgres.current.freshDatabase();
    const store = PostgresAgentStore.connect(url);
    opened.push(store);
    await store.insert(agent());
    await store.insert(agent({ address: BOB }));
    const { cursor } = await store.snapshot("testnet");
    const slow = await store.pool.connect();
    try {
      await slow.query("BEGIN");
      await slow.query("UPDATE leaderboard_agents SET account_value = 1 WHERE address = $1", [ALICE]);
      await store.recordSuccess("testnet", BOB, {
        accountValue: "2",
        positionsCount: 0,
        netDeposits: "0",
        at: 1,
      });
      const first = await store.changesSince("testnet", cursor);
      expect(first.rows.map((r) => r.address)).toEqual([BOB]);
      await slow.query("COMMIT");
      const next = await store.changesSince("testnet", first.cursor);
      expect(next.rows.find((r) => r.address === ALICE)?.accountValue).toBe("1");
    } finally {
      slow.release();
    }
  });
});

describe("openAgentStore", () => {
  it("uses Postgres when DATABASE_URL is configured, the SQLite file otherwise", async () => {
    const url = await postgres.current.freshDatabase();
    const pgStore = openAgentStore({ dbPath: join(dir, "unused.db"), databaseUrl: url });
    const sqliteStore = openAgentStore({ dbPath: join(dir, "chosen.db"), databaseUrl: undefined });
    opened.push(pgStore, sqliteStore);
    expect(pgStore).toBeInstanceOf(PostgresAgentStore);
    expect(sqliteStore).toBeInstanceOf(SqliteAgentStore);
    await pgStore.insert(agent());
    expect(await sqliteStore.count("testnet")).toBe(0);
    expect(await pgStore.count("testnet")).toBe(1);
  });
});
