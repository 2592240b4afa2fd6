import { describe, expect, it } from "vitest";
import { D } from "../../../src/core/decimal.ts";
import { bucketStart, toCandles } from "../../../src/services/isfr/ohlc.ts";

const at = (iso: string, v: string) => ({ tMs: Date.parse(iso), value: new D(v) });

describe("ISFR OHLC candles", () => {
  const series = [
    at("2026-03-01T22:00:00Z", "200"),
    at("2026-03-01T23:00:00Z", "210"),
    at("2026-03-01T23:59:59Z", "190"),
    at("2026-03-02T00:00:00Z", "205"), // next UTC day, and a Monday
    at("2026-03-02T01:00:00Z", "220"),
    at("2026-03-02T04:00:00Z", "215"),
  ];

  it("splits daily candles exactly at midnight UTC", () => {
    const c = toCandles([...series].reverse(), "1D");
    expect(c.map((x) => new Date(x.startMs).toISOString())).toEqual([
      "2026-03-01T00:00:00.000Z",
      "2026-03-02T00:00:00.000Z",
    ]);
    expect(c.map((x) => [x.open, x.high, x.low, x.close, x.count].map(String))).toEqual([
      ["200", "210", "190", "190", "3"],
      ["205", "220", "205", "215", "3"],
    ]);
  });

  it("aligns 4H candles to 00/04/08/… UTC", () => {
    const c = toCandles(series, "4H");
    expect(c.map((x) => new Date(x.startMs).toISOString().slice(11, 16))).toEqual([
      "20:00",
      "00:00",
      "04:00",
    ]);
    expect(c[1]!.count).toBe(2);
  });

  it("opens weekly candles on Monday 00:00 UTC", () => {
    expect(new Date(bucketStart(Date.parse("2026-03-01T23:59:59Z"), "1W")).toISOString()).toBe(
      "2026-02-23T00:00:00.000Z",
    );
    expect(new Date(bucketStart(Date.parse("2026-03-02T00:00:00Z"), "1W")).toISOString()).toBe(
      "2026-03-02T00:00:00.000Z",
    );
    expect(toCandles(series, "1W").map((x) => x.count)).toEqual([3, 3]);
  });

  it("groups snapshots of the same hour at 1H, and gives no candle without data", () => {
    expect(toCandles(series, "1H").map((x) => x.count)).toEqual([1, 2, 1, 1, 1]);
    expect(toCandles([], "1D")).toEqual([]);
  });
});
