import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RateBudget } from "../../src/exchange/budget.ts";
import { fetchMarketHistory, type MarketHistorySource, missingWindows } from "../../src/market/fetch.ts";
import { openHistorySource } from "../../src/market/hl-source.ts";
import { readCandles, readFunding } from "../../src/market/index.ts";
import { exportSimHistory } from "../../src/market/sim-export.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";

const END = Date.UTC(2026, 2, 10);
const DAY = 86_400_000;
const HOUR = 3_600_000;
const base = mkdtempSync(join(tmpdir(), "market-fetch-"));
let world: SimWorld;

beforeAll(async () => {
  world = await startSimWorld({ seed: 5, startMs: END, historyDays: 2, houseMakers: false });
});
afterAll(async () => {
  await world.close();
  rmSync(base, { recursive: true, force: true });
});

/** The sim world's API, counting requests, failing on demand (a dropped connection mid-fetch). */
function counted(inner: MarketHistorySource, failAt?: { kind: "candles" | "funding"; coin: string }) {
  const calls: string[] = [];
  const source: MarketHistorySource = {
    async candleSnapshot(req) {
      if (failAt?.kind === "candles" && failAt.coin === req.coin) throw new Error("connection reset");
      calls.push(`candles ${req.coin} ${req.startTime}`);
      return inner.candleSnapshot(req);
    },
    async fundingHistory(req) {
      if (failAt?.kind === "funding" && failAt.coin === req.coin) throw new Error("connection reset");
      calls.push(`funding ${req.coin} ${req.startTime}`);
      return inner.fundingHistory(req);
    },
  };
  return { source, calls };
}

describe("missingWindows", () => {
  it("covers every missing bucket in windows of at most the page size, skipping what is held", () => {
    const held = [0, 1, 2, 5].map((t) => ({ t }));
    expect(missingWindows(0, 12, 1, held, 4)).toEqual([
      { from: 3, to: 7 },
      { from: 7, to: 11 },
      { from: 11, to: 12 },
    ]);
    expect(missingWindows(0, 3, 1, held, 4)).toEqual([]);
  });
});

describe("fetchMarketHistory against a sim world over HTTP", () => {
  const coins = ["ETH", "yex:VXX"];
  const range = { interval: "1m" as const, fromMs: END - DAY, toMs: END };

  it("stores what the world serves: the same candles and funding as hl sim export of that seed", async () => {
    const root = join(base, "full");
    const budget = new RateBudget({ weightPerMinute: 100_000, now: () => 0 });
    const { source, calls } = counted(openHistorySource("paper", { apiUrl: world.url, budget }));
    const result = await fetchMarketHistory(source, {
      root,
      network: "paper",
      coins,
      ...range,
      now: () => END,
    });
    expect(result.coins.map((c) => [c.coin, c.candles.stored, c.funding.stored])).toEqual([
      ["ETH", 1440, 24],
      ["yex:VXX", 1440, 24],
    ]);
    // 1,440 minutes fit one candleSnapshot page; one fundingHistory page per coin.
    expect(calls.length).toBe(4);
    // Every request went through the weight budget: 20 each, plus 1 per 60 candles returned.
    expect(100_000 - budget.available()).toBe(4 * 20 + 2 * (1440 / 60) + 2 * Math.floor(24 / 20));

    const exported = join(base, "exported");
    await exportSimHistory({ root: exported, days: 2, coins, seed: 5, endMs: END }); // the world's history length
    for (const coin of coins) {
      const q = { network: "paper", coin, fromMs: END - DAY, toMs: END };
      expect(await readCandles({ ...q, root, interval: "1m" })).toEqual(
        await readCandles({ ...q, root: exported, interval: "1m" }),
      );
      expect(await readFunding({ ...q, root })).toEqual(await readFunding({ ...q, root: exported }));
    }
  });

  it("resumes after an interruption: a second run asks only for what is missing", async () => {
    const root = join(base, "resume");
    const opts = { root, network: "paper", coins, ...range, now: () => END };
    const api = openHistorySource("paper", { apiUrl: world.url });
    const first = counted(api, { kind: "candles", coin: "yex:VXX" });
    await expect(fetchMarketHistory(first.source, opts)).rejects.toThrow(/connection reset/);
    expect(first.calls).toEqual([`candles ETH ${END - DAY}`, `funding ETH ${END - DAY}`]);

    const second = counted(api);
    const result = await fetchMarketHistory(second.source, opts);
    expect(second.calls).toEqual([`candles yex:VXX ${END - DAY}`, `funding yex:VXX ${END - DAY}`]);
    expect(result.coins[1]!.candles.stored).toBe(1440);

    // A wider range later asks only for the new part.
    const third = counted(api);
    await fetchMarketHistory(third.source, { ...opts, coins: ["ETH"], fromMs: END - DAY - 6 * HOUR });
    expect(third.calls).toEqual([
      `candles ETH ${END - DAY - 6 * HOUR}`,
      `funding ETH ${END - DAY - 6 * HOUR}`,
    ]);
    const held = await readCandles({
      root,
      network: "paper",
      coin: "ETH",
      interval: "1m",
      fromMs: 0,
      toMs: END,
    });
    expect(held.length).toBe(1440 + 360);

    const fourth = counted(api);
    await fetchMarketHistory(fourth.source, opts);
    expect(fourth.calls).toEqual([]);
  });

  it("stores only closed candles: the bucket in progress is fetched on a later run", async () => {
    const root = join(base, "open");
    const { source } = counted(openHistorySource("paper", { apiUrl: world.url }));
    const now = END - 30 * 60_000 + 20_000; // 20 s into a minute, half an hour before END
    await fetchMarketHistory(source, {
      root,
      network: "paper",
      coins: ["ETH"],
      interval: "5m",
      fromMs: END - 2 * HOUR,
      toMs: END,
      now: () => now,
    });
    const held = await readCandles({
      root,
      network: "paper",
      coin: "ETH",
      interval: "5m",
      fromMs: 0,
      toMs: END,
    });
    expect(held.length).toBe(18);
    expect(held.at(-1)!.T).toBeLessThan(now);
  });
});
