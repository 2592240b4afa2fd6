import { appendFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { MarketHistorySource } from "../../src/market/fetch.ts";
import {
  coinDir,
  journalFile,
  readAssetCtxs,
  readBooks,
  readFunding,
  readTrades,
} from "../../src/market/index.ts";
import { MarketRecorder } from "../../src/market/recorder.ts";

const base = mkdtempSync(join(tmpdir(), "market-rec-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const DAY0 = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;
const HOUR = 3_600_000;

const trade = (time: number, tid: number) => ({ time, px: "3000.5", sz: "0.10", side: "B" as const, tid });
const book = (time: number) => ({
  time,
  levels: [
    [
      { px: "2999", sz: "1" },
      { px: "2998", sz: "2" },
      { px: "2997", sz: "3" },
    ],
    [{ px: "3001", sz: "1.5" }],
  ],
});
const ctx = {
  funding: "0.0000125",
  openInterest: "100",
  oraclePx: "3000",
  markPx: "3000.1",
  midPx: "3000.2",
  premium: null,
  dayNtlVlm: "1000",
  prevDayPx: "2900",
};

describe("MarketRecorder", () => {
  it("journals are readable once flushed; at UTC midnight the finished day is compacted into Parquet; stop compacts the rest", async () => {
    const root = join(base, "rotate");
    let clock = DAY0 + DAY - 2_000;
    const rec = new MarketRecorder({ root, network: "test", coins: ["ETH"], bookDepth: 2, now: () => clock });
    const q = { root, network: "test", coin: "ETH", fromMs: DAY0, toMs: DAY0 + 2 * DAY };
    const tradesDir = coinDir(root, "test", "trades", "ETH");

    rec.trades("ETH", [trade(DAY0 + DAY - 1_500, 1), trade(DAY0 + DAY - 1_400, 2)]);
    rec.book("ETH", book(DAY0 + DAY - 1_300));
    rec.assetCtx("ETH", ctx);
    expect(await readTrades(q)).toEqual([]); // not flushed yet
    await rec.tick();
    expect((await readTrades(q)).map((t) => t.tid)).toEqual(["1", "2"]);
    expect((await readBooks(q))[0]).toEqual({
      t: DAY0 + DAY - 1_300,
      bids: [
        ["2999", "1"],
        ["2998", "2"],
      ],
      asks: [["3001", "1.5"]],
    });
    expect((await readAssetCtxs(q))[0]).toMatchObject({ t: clock, markPx: "3000.1", premium: null });
    expect(readdirSync(tradesDir)).toEqual(["2026-01-01.journal.jsonl"]);

    clock = DAY0 + DAY + 1_000; // past midnight
    rec.trades("ETH", [trade(DAY0 + DAY + 500, 3), trade(DAY0 + DAY - 100, 4)]); // one late trade of the old day
    await rec.tick();
    const afterMidnight = ["2026-01-01.parquet", "2026-01-02.journal.jsonl"];
    expect(readdirSync(tradesDir).sort()).toEqual(afterMidnight);
    rec.trades("ETH", [trade(DAY0 + DAY - 50, 5)]); // later still: compacted into the finished day at once
    await rec.tick();
    expect(readdirSync(tradesDir).sort()).toEqual(afterMidnight);
    expect((await readTrades(q)).map((t) => [t.tid, t.sz])).toEqual([
      ["1", "0.1"],
      ["2", "0.1"],
      ["4", "0.1"],
      ["5", "0.1"],
      ["3", "0.1"],
    ]);

    await rec.stop();
    expect(() => rec.trades("ETH", [trade(clock, 6)])).toThrow(/stopped/);
    expect(readdirSync(tradesDir).sort()).toEqual(["2026-01-01.parquet", "2026-01-02.parquet"]);
    expect((await readTrades(q)).map((t) => t.tid)).toEqual(["1", "2", "4", "5", "3"]);
  });

  it("a torn last line (killed mid-write) is fenced off; recover() compacts an earlier run's journals", async () => {
    const root = join(base, "torn");
    const dir = coinDir(root, "test", "trades", "ETH");
    const first = new MarketRecorder({ root, network: "test", coins: ["ETH"], now: () => DAY0 + 10 });
    first.trades("ETH", [trade(DAY0 + 1, 1)]);
    await first.tick();
    appendFileSync(journalFile(dir, "2026-01-01"), '{"t":1767225600002,"px":"30');
    const second = new MarketRecorder({ root, network: "test", coins: ["ETH"], now: () => DAY0 + 20 });
    second.trades("ETH", [trade(DAY0 + 3, 3)]);
    await second.tick();
    const q = { root, network: "test", coin: "ETH", fromMs: DAY0, toMs: DAY0 + DAY };
    expect((await readTrades(q)).map((t) => t.tid)).toEqual(["1", "3"]);

    const nextDay = new MarketRecorder({ root, network: "test", coins: ["ETH"], now: () => DAY0 + DAY + 5 });
    await nextDay.recover();
    expect(existsSync(journalFile(dir, "2026-01-01"))).toBe(false);
    expect((await readTrades(q)).map((t) => t.tid)).toEqual(["1", "3"]);
  });

  it("reads the settled funding of each hour that has passed", async () => {
    const root = join(base, "funding");
    const asked: number[] = [];
    const source: MarketHistorySource = {
      candleSnapshot: async () => [],
      fundingHistory: async (req) => {
        asked.push(req.startTime);
        return [{ time: DAY0 + HOUR + 42, fundingRate: "0.0000125", premium: "-0.0001" }];
      },
    };
    let clock = DAY0 + 30 * 60_000;
    const rec = new MarketRecorder({
      root,
      network: "test",
      coins: ["ETH"],
      now: () => clock,
      funding: source,
    });
    await rec.tick();
    expect(asked).toEqual([]);
    clock = DAY0 + HOUR + 20_000;
    await rec.tick();
    await rec.tick();
    expect(asked).toEqual([DAY0]);
    expect(await readFunding({ root, network: "test", coin: "ETH", fromMs: DAY0, toMs: DAY0 + DAY })).toEqual(
      [{ t: DAY0 + HOUR + 42, rate: "0.0000125", premium: "-0.0001" }],
    );
  });
});
