import { describe, expect, it } from "vitest";
import { CandleCache } from "../../src/signals/candle-cache.ts";
import { type Candle, type CandleInterval, closedCandles, INTERVAL_MS } from "../../src/signals/candles.ts";
import type { MarketDataSource } from "../../src/signals/source.ts";
import { MinuteMarket } from "./minute-market.ts";

/** The candles a reader gets (null when the series could not be read). */
const candlesOf = async (cache: CandleCache, ...a: Parameters<CandleCache["window"]>) =>
  (await cache.window(...a))?.candles ?? null;

/** A source that counts its candle reads and answers every bar of the window. */
function countingSource(clock: { now: number }) {
  const reads: string[] = [];
  const source: MarketDataSource = {
    now: () => clock.now,
    markets: async () => [],
    async candles(coin: string, interval: CandleInterval, startTime: number, endTime: number) {
      reads.push(`${coin}|${interval}`);
      const step = INTERVAL_MS[interval];
      const out: Candle[] = [];
      for (let t = Math.ceil(startTime / step) * step; t <= endTime; t += step)
        out.push({ t, T: t + step - 1, o: 1, h: 1, l: 1, c: 1, v: 1, n: 1 } as Candle);
      return out;
    },
  };
  return { source, reads };
}

describe("candle cache", () => {
  it("reads a series once for every lookback that asks for it, and answers each its own window", async () => {
    const clock = { now: Date.UTC(2026, 10, 27, 10, 7) };
    const { source, reads } = countingSource(clock);
    const cache = new CandleCache(source, 300_000);
    const long = await candlesOf(cache, "ETH", "1h", 48 * 3_600_000);
    const short = await candlesOf(cache, "ETH", "1h", 24 * 3_600_000);
    expect(reads).toEqual(["ETH|1h"]);
    expect(long!.length).toBe(48);
    expect(short!.length).toBe(24);
    expect(short!.every((c) => c.t >= clock.now - 24 * 3_600_000)).toBe(true);
  });

  it("a forming-bar reader reads a long-interval series again only once a quarter of its bar has passed (at least maxAge)", async () => {
    const clock = { now: Date.UTC(2026, 10, 27, 9, 7) };
    const { source, reads } = countingSource(clock);
    const cache = new CandleCache(source, 300_000);
    await candlesOf(cache, "SOL", "4h", 86_400_000, "forming");
    await candlesOf(cache, "SOL", "15m", 86_400_000, "forming");
    clock.now += 6 * 60_000; // 6 min: the 15m series is due, the 4h one is not (due after 60 min)
    await candlesOf(cache, "SOL", "4h", 86_400_000, "forming");
    await candlesOf(cache, "SOL", "15m", 86_400_000, "forming");
    expect(reads).toEqual(["SOL|4h", "SOL|15m", "SOL|15m"]);
    clock.now += 55 * 60_000;
    await candlesOf(cache, "SOL", "4h", 86_400_000, "forming");
    expect(reads.filter((r) => r === "SOL|4h")).toHaveLength(2);
  });
});

describe("candle cache against an exchange whose forming candle grows", () => {
  it("a series read while a bar was forming is read again once it closed: the scanner never sees it half-made (test seen failing first)", async () => {
    const start = Date.UTC(2026, 10, 27, 10, 55);
    const exchange = new MinuteMarket(start - 300 * 3_600_000, 3);
    const clock = { now: start };
    const source: MarketDataSource = {
      now: () => clock.now,
      markets: async () => [],
      candles: async (coin, interval, from, to) => exchange.candles(coin, interval, from, to, clock.now),
    };
    const cache = new CandleCache(source, 300_000);
    await candlesOf(cache, "ETH", "1h", 48 * 3_600_000);
    clock.now = start + 10 * 60_000; // 11:05: the 10:00 bar closed at 11:00
    const cached = closedCandles((await candlesOf(cache, "ETH", "1h", 48 * 3_600_000))!, clock.now);
    const fresh = closedCandles(
      exchange.candles("ETH", "1h", clock.now - 48 * 3_600_000, clock.now, clock.now),
      clock.now,
    );
    expect(cached.at(-1)).toEqual(fresh.at(-1));
    expect(cached).toEqual(fresh);
  });
});

describe("candle cache readers' needs", () => {
  it("a bar that starts printing after the read: the scanner's closed bars are unchanged, movers' breakout reads again", async () => {
    const clock = { now: Date.UTC(2026, 10, 27, 11, 0, 30) };
    const firstTradeOfHour = Date.UTC(2026, 10, 27, 11, 5);
    const reads: number[] = [];
    const source: MarketDataSource = {
      now: () => clock.now,
      markets: async () => [],
      async candles(_coin, _interval, from, to) {
        reads.push(from);
        const out: Candle[] = [];
        for (let t = Math.ceil(from / 3_600_000) * 3_600_000; t <= to; t += 3_600_000)
          if (t < firstTradeOfHour - 300_000 || clock.now >= firstTradeOfHour)
            out.push({ t, T: t + 3_599_999, o: 1, h: 2, l: 1, c: 1, v: 1 });
        return out;
      },
    };
    const cache = new CandleCache(source, 300_000);
    await candlesOf(cache, "ETH", "1h", 48 * 3_600_000, "closed");
    await candlesOf(cache, "ETH", "1h", 48 * 3_600_000, "forming-present");
    expect(reads).toHaveLength(2); // the 11:00 bar had not printed: movers' reader asked again
    clock.now = Date.UTC(2026, 10, 27, 11, 10);
    await candlesOf(cache, "ETH", "1h", 48 * 3_600_000, "closed");
    expect(reads).toHaveLength(2);
    const got = await candlesOf(cache, "ETH", "1h", 48 * 3_600_000, "forming-present");
    expect(reads).toHaveLength(3);
    expect(got!.at(-1)!.t).toBe(Date.UTC(2026, 10, 27, 11));
    await candlesOf(cache, "ETH", "1h", 48 * 3_600_000, "forming-present");
    expect(reads).toHaveLength(3);
  });

  it("concurrent readers of one series share one read; a first read covers the planned lookback", async () => {
    const clock = { now: Date.UTC(2026, 10, 27, 10, 7) };
    const { source, reads } = countingSource(clock);
    const cache = new CandleCache(source, 300_000);
    cache.plan("4h", 200 * 3_600_000);
    const [day, long] = await Promise.all([
      candlesOf(cache, "ETH", "4h", 24 * 3_600_000, "forming"),
      candlesOf(cache, "ETH", "4h", 200 * 3_600_000, "closed"),
    ]);
    expect(reads).toEqual(["ETH|4h"]);
    expect(day!.length).toBe(6);
    expect(long!.length).toBe(50);
  });
});
