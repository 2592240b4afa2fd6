import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  EXCHANGE_FILL_WINDOW,
  FillHistory,
  type SourceFill,
} from "../../../src/services/points/fill-history.ts";
import { openPointsStore } from "../../../src/services/points/open-store.ts";
import { PostgresPointsStore } from "../../../src/services/points/pg-store.ts";
import { type PointsStore, SqlitePointsStore, type StoredFill } from "../../../src/services/points/store.ts";
import { usePostgres } from "../../support/postgres.ts";

/** The same contract for both points stores: what SQLite does today, Postgres must do too. */

const postgres = usePostgres();
const dir = mkdtempSync(join(tmpdir(), "hl-points-store-"));
let opened: PointsStore[] = [];
afterEach(async () => {
  await Promise.all(opened.map((s) => s.close()));
  opened = [];
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
const kinds: [string, () => Promise<PointsStore>][] = [
  ["SQLite", async () => new SqlitePointsStore(join(dir, `points-${++files}.db`))],
  ["Postgres", async () => PostgresPointsStore.connect(await postgres.current.freshDatabase())],
];

const WALLET = "0x00000000000000000000000000000000000000a1";
const OTHER = "0x00000000000000000000000000000000000000b2";

const fill = (tid: number, time: number, over: Partial<StoredFill> = {}): StoredFill => ({
  tid,
  time,
  side: tid % 2 === 0 ? "B" : "A",
  px: "75012.5",
  sz: "0.00012",
  crossed: tid % 3 === 0,
  builderFee: tid % 5 === 0 ? "0.0123456789" : null,
  ...over,
});

describe.each(kinds)("points store on %s", (_kind, open) => {
  const fresh = async () => {
    const s = await open();
    opened.push(s);
    return s;
  };

  it("marks: the last at or before each time within the tolerance, one answer per time, in order", async () => {
    const store = await fresh();
    expect(await store.lastMarkTs()).toBeUndefined();
    expect(await store.marksAt([1000], 60_000)).toEqual([null]);
    await store.addMarks([
      { ts: 1_000, px: "75000.000000" },
      { ts: 31_000, px: "75001.250000" },
      { ts: 31_000, px: "75001.500000" }, // the same timestamp again: the later price wins
    ]);
    await store.addMarks([{ ts: 61_000, px: "74999.999999" }]);
    expect(await store.lastMarkTs()).toBe(61_000);
    expect(await store.marksAt([61_000, 999, 1_000, 30_999, 31_000, 121_000, 121_001], 60_000)).toEqual([
      "74999.999999",
      null,
      "75000.000000",
      "75000.000000",
      "75001.500000",
      "74999.999999",
      null,
    ]);
    expect(await store.marksAt([], 60_000)).toEqual([]);
  });

  it("fills: stored once per trade id, read back exactly, by time then trade id, per wallet", async () => {
    const store = await fresh();
    const batch = [fill(3, 2_000), fill(1, 1_000), fill(2, 1_000), fill(5, 3_000)];
    expect(await store.recordSync(WALLET, batch, 3_000, null)).toBe(4);
    expect(await store.recordSync(WALLET, [fill(5, 3_000), fill(6, 4_000)], 4_000, null)).toBe(1);
    await store.recordSync(OTHER, [fill(1, 1_000, { px: "1" })], 1_000, null);
    const read = await store.fillsSince(WALLET, 1_000);
    expect(read.map((f) => f.tid)).toEqual([1, 2, 3, 5, 6]);
    expect(read[3]).toEqual(fill(5, 3_000));
    expect(read[0]).toEqual(fill(1, 1_000));
    expect((await store.fillsSince(WALLET, 2_001)).map((f) => f.tid)).toEqual([5, 6]);
    expect(await store.knownWallets()).toEqual([WALLET, OTHER].sort());
  });

  it("sync state never moves backwards and keeps a gap once found", async () => {
    const store = await fresh();
    expect(await store.walletSync(WALLET)).toBeUndefined();
    await store.recordSync(WALLET, [], 5_000, null);
    expect(await store.walletSync(WALLET)).toEqual({ throughMs: 5_000, missingBeforeMs: null });
    await store.recordSync(WALLET, [], 4_000, 2_500);
    expect(await store.walletSync(WALLET)).toEqual({ throughMs: 5_000, missingBeforeMs: 2_500 });
    await store.recordSync(WALLET, [], 6_000, null);
    expect(await store.walletSync(WALLET)).toEqual({ throughMs: 6_000, missingBeforeMs: 2_500 });
  });

  it("the fill history keeps a wallet whole past the exchange's window on this store", async () => {
    const store = await fresh();
    const history = new FillHistory(store, "BTCSWP");
    const exchange: SourceFill[] = [];
    const trade = (n: number, from: number) => {
      for (let i = 0; i < n; i++)
        exchange.push({
          tid: exchange.length + 1,
          time: from + i,
          coin: "BTCSWP",
          side: "B",
          px: "75000.1",
          sz: "0.001",
          crossed: true,
        });
    };
    const fetch = async (_user: string, startMs: number) =>
      exchange.slice(-EXCHANGE_FILL_WINDOW).filter((f) => f.time >= startMs);
    trade(8_000, 1_000_000);
    expect((await history.sync(WALLET, fetch, 0)).fills).toHaveLength(8_000);
    trade(8_000, 2_000_000);
    const second = await history.sync(WALLET, fetch, 0);
    expect(second.fills).toHaveLength(16_000);
    expect(second.coverage).toEqual({ complete: true, missingBeforeMs: null });
  });
});

describe("the fill history on two replicas sharing one Postgres", () => {
  it("a replica sees fills another replica stored since its own last read", async () => {
    const url = await postgres.current.freshDatabase();
    const a = PostgresPointsStore.connect(url);
    const b = PostgresPointsStore.connect(url);
    opened.push(a, b);
    const onA = new FillHistory(a, "BTCSWP");
    const onB = new FillHistory(b, "BTCSWP");
    const f = (tid: number): SourceFill => ({
      tid,
      time: 1_000 + tid,
      coin: "BTCSWP",
      side: "A",
      px: "1",
      sz: "1",
      crossed: false,
    });
    expect((await onA.sync(WALLET, async () => [f(1)], 0)).fills).toHaveLength(1);
    expect(
      (await onB.sync(WALLET, async (_u, from) => [f(1), f(2)].filter((x) => x.time >= from), 0)).fills,
    ).toHaveLength(2);
    // A asks the exchange from B's sync point, finds nothing new, and still answers with both fills.
    expect((await onA.sync(WALLET, async () => [], 0)).fills.map((x) => x.tid)).toEqual([1, 2]);
  });
});

describe("openPointsStore", () => {
  it("uses Postgres when DATABASE_URL is configured, the SQLite file otherwise", async () => {
    const url = await postgres.current.freshDatabase();
    const pgStore = openPointsStore({ dbPath: join(dir, "unused.db"), databaseUrl: url });
    const sqliteStore = openPointsStore({ dbPath: join(dir, "chosen.db") });
    opened.push(pgStore, sqliteStore);
    expect(pgStore).toBeInstanceOf(PostgresPointsStore);
    expect(sqliteStore).toBeInstanceOf(SqlitePointsStore);
  });
});
