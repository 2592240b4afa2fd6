import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { closedCandles, rollUp } from "../../src/signals/candles.ts";
import { parseMarkets } from "../../src/signals/market.ts";
import {
  candlePatterns,
  ema,
  fundingAnnualPct,
  hourlyTrend,
  priceChanges,
  rsi,
  trend4h,
  volumeRatio,
} from "../../src/signals/technicals.ts";
import { candle, candlesFrom, NOW } from "./fixtures.ts";

describe("indicators", () => {
  it("EMA is seeded with the first close and keeps the input length", () => {
    expect(ema([100], 5)).toEqual([100]);
    expect(ema([7, 7, 7, 7], 3)).toEqual([7, 7, 7, 7]);
    expect(ema([], 5)).toEqual([]);
    expect(ema([1, 2], 0)).toEqual([]);
    const e = ema(
      Array.from({ length: 20 }, (_, i) => i + 1),
      5,
    );
    expect(e).toHaveLength(20);
    expect(e[19]!).toBeLessThan(20);
    expect(e[19]!).toBeGreaterThan(e[18]!);
  });

  it("RSI: rising 100, falling 0, choppy mid, short 50, flat 50 (not 100)", () => {
    expect(rsi(Array.from({ length: 19 }, (_, i) => i + 1))).toBe(100);
    expect(rsi(Array.from({ length: 19 }, (_, i) => 20 - i))).toBe(0);
    const zig = rsi(Array.from({ length: 40 }, (_, i) => 100 + (i % 2 ? 1 : -1)));
    expect(zig).toBeGreaterThan(40);
    expect(zig).toBeLessThan(60);
    expect(rsi([1, 2])).toBe(50);
    expect(rsi(Array(30).fill(100))).toBe(50);
    fc.assert(
      fc.property(fc.array(fc.double({ min: 1, max: 1000, noNaN: true }), { maxLength: 60 }), (xs) => {
        const r = rsi(xs);
        expect(r).toBeGreaterThanOrEqual(0);
        expect(r).toBeLessThanOrEqual(100);
      }),
    );
  });

  it("hourly trend from swing structure", () => {
    const up = [100, 104, 102, 106, 104, 108, 106, 110, 108, 112, 110].map((c) =>
      candle(c - 1, c + 1, c - 2, c),
    );
    expect(hourlyTrend(up)).toBe("UP");
    const down = [112, 108, 110, 106, 108, 104, 106, 102, 104, 100, 102].map((c) =>
      candle(c + 1, c + 2, c - 1, c),
    );
    expect(hourlyTrend(down)).toBe("DOWN");
    expect(hourlyTrend(Array(5).fill(candle(100, 101, 99, 100)))).toBe("NEUTRAL");
  });

  it("4h trend: label thresholds and strength", () => {
    const up = trend4h(candlesFrom(Array.from({ length: 20 }, (_, i) => 100 + 3 * i)));
    expect(["up", "strong_up"]).toContain(up.trend);
    expect(up.strength).toBeGreaterThan(20);
    const down = trend4h(candlesFrom(Array.from({ length: 20 }, (_, i) => 200 - 3 * i)));
    expect(["down", "strong_down"]).toContain(down.trend);
    expect(down.strength).toBeGreaterThan(20);
    expect(trend4h(candlesFrom(Array(20).fill(100))).trend).toBe("neutral");
    expect(trend4h([])).toEqual({ trend: "neutral", strength: 0, diff_pct: 0 });
    expect(trend4h(candlesFrom(Array(13).fill(100))).strength).toBe(0);
  });

  it("volume ratio of the last 4 bars over the 4 before", () => {
    expect(
      volumeRatio(candlesFrom(Array(12).fill(1), { v: [...Array(8).fill(100), ...Array(4).fill(300)] })),
    ).toBeGreaterThan(2);
    expect(
      volumeRatio(candlesFrom(Array(12).fill(1), { v: [...Array(8).fill(300), ...Array(4).fill(100)] })),
    ).toBeLessThan(0.5);
    expect(volumeRatio(candlesFrom(Array(12).fill(1), { v: 100 }))).toBeCloseTo(1, 2);
    expect(volumeRatio(candlesFrom([1, 2, 3]))).toBe(1);
  });

  it("candlestick patterns", () => {
    const pad = [candle(100, 101, 99, 100), candle(100, 101, 99, 100)];
    expect(candlePatterns([...pad, candle(99, 100, 90, 99.5)])).toContain("hammer");
    expect(candlePatterns([pad[0]!, candle(102, 103, 99, 100), candle(99, 104, 98, 103)])).toContain(
      "bullish_engulfing",
    );
    expect(candlePatterns([pad[0]!, candle(100, 103, 99, 102), candle(103, 104, 98, 99)])).toContain(
      "bearish_engulfing",
    );
    const doji = candlePatterns([...pad, candle(100, 105, 95, 100.2)]);
    expect(doji).toContain("doji");
    expect(doji).not.toContain("hammer");
    expect(
      candlePatterns([candle(100, 103, 99, 102), candle(102, 106, 101, 105), candle(105, 109, 104, 108)]),
    ).toContain("three_soldiers");
    expect(
      candlePatterns([candle(108, 109, 104, 105), candle(105, 106, 101, 102), candle(102, 103, 98, 99)]),
    ).toContain("three_crows");
    expect(candlePatterns([])).toEqual([]);
  });

  it("price changes", () => {
    const ch = priceChanges(candlesFrom(Array.from({ length: 25 }, (_, i) => 100 + i)));
    expect(ch.chg1h).toBeGreaterThan(0);
    expect(ch.chg4h).toBeGreaterThan(0);
    expect(ch.chg24h).toBeGreaterThan(0);
    expect(priceChanges([])).toEqual({ chg1h: 0, chg4h: 0, chg24h: 0 });
  });
});

describe("units (predecessor §7 bugs 4–7)", () => {
  it("annualises hourly funding ×8760, not ×1095", () => {
    expect(fundingAnnualPct(0.0001)).toBeCloseTo(87.6, 10);
    expect(fundingAnnualPct(-0.00001)).toBeCloseTo(8.76, 10);
  });

  it("reads OI in USD (coins × mark) from metaAndAssetCtxs", () => {
    const [m] = parseMarkets({ universe: [{ name: "ETH" }] }, [
      { dayNtlVlm: "1000000", funding: "0.0000125", openInterest: "200", markPx: "2500" },
    ]);
    expect(m!.open_interest_usd).toBe(500_000);
    expect(m!.volume_24h).toBe(1_000_000);
    expect(m!.funding_rate).toBe(0.0000125);
  });

  it("drops the in-progress candle", () => {
    const cs = candlesFrom([1, 2, 3]);
    const forming = { t: NOW - 60_000, T: NOW + 3_540_000, o: 3, h: 3, l: 3, c: 3, v: 1 };
    expect(closedCandles([...cs, forming], NOW)).toHaveLength(3);
    expect(closedCandles(cs, NOW)).toBe(cs);
  });
});

describe("rollUp", () => {
  it("builds 4h bars from 1h ones: first open, high, low, last close, summed volume; a bar opening before `from` is left out", () => {
    const H = 3_600_000;
    const base = Date.UTC(2026, 10, 27, 0);
    const hours = [
      { t: base - H, T: base - 1, o: 9, h: 9, l: 9, c: 9, v: 1 },
      { t: base, T: base + H - 1, o: 10, h: 12, l: 9, c: 11, v: 1 },
      { t: base + 2 * H, T: base + 3 * H - 1, o: 11, h: 15, l: 10, c: 14, v: 2 },
      { t: base + 4 * H, T: base + 5 * H - 1, o: 14, h: 14, l: 13, c: 13, v: 3 },
    ];
    expect(rollUp(hours, "4h", base)).toEqual([
      { t: base, T: base + 4 * H - 1, o: 10, h: 15, l: 9, c: 14, v: 3 },
      { t: base + 4 * H, T: base + 8 * H - 1, o: 14, h: 14, l: 13, c: 13, v: 3 },
    ]);
  });
});
