import { describe, expect, it } from "vitest";
import type { Candle, CandleInterval } from "../../src/signals/candles.ts";
import { INTERVAL_MS } from "../../src/signals/candles.ts";
import { CandleCache, type MarketDataSource } from "../../src/signals/source.ts";

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
    const long = await cache.get("ETH", "1h", 48 * 3_600_000);
    const short = await cache.get("ETH", "1h", 24 * 3_600_000);
    expect(reads).toEqual(["ETH|1h"]);
    expect(long!.length).toBe(48);
    expect(short!.length).toBe(24);
    expect(short!.every((c) => c.t >= clock.now - 24 * 3_600_000)).toBe(true);
  });

  it("reads a long-interval series again only once a quarter of its bar has passed (at least maxAge)", async () => {
    const clock = { now: Date.UTC(2026, 10, 27, 10, 7) };
    const { source, reads } = countingSource(clock);
    const cache = new CandleCache(source, 300_000);
    await cache.get("SOL", "4h", 86_400_000);
    await cache.get("SOL", "15m", 86_400_000);
    clock.now += 10 * 60_000; // 10 min: the 15m series is due, the 4h one is not (due after 60 min)
    await cache.get("SOL", "4h", 86_400_000);
    await cache.get("SOL", "15m", 86_400_000);
    expect(reads).toEqual(["SOL|4h", "SOL|15m", "SOL|15m"]);
    clock.now += 55 * 60_000;
    await cache.get("SOL", "4h", 86_400_000);
    expect(reads.filter((r) => r === "SOL|4h")).toHaveLength(2);
  });
});
