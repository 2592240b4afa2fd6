import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Decimal } from "decimal.js";
import fc from "fast-check";
import { parquetMetadata, parquetSchema } from "hyparquet";
import { afterAll, describe, expect, it } from "vitest";
import { journalLine } from "../../src/market/day-store.ts";
import {
  type BookRow,
  type CandleRow,
  candleSpecOf,
  canonicalDecimal,
  coinDir,
  DAY_MS,
  dayOf,
  decimalToDouble,
  doubleToDecimal,
  journalFile,
  readAssetCtxs,
  readBooks,
  readCandleColumns,
  readCandles,
  readFunding,
  readTrades,
  splitCoin,
  TRADES_SPEC,
  writeAssetCtxs,
  writeBooks,
  writeCandles,
  writeFunding,
  writeTrades,
} from "../../src/market/index.ts";

const root = mkdtempSync(join(tmpdir(), "market-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const DAY0 = Date.UTC(2026, 0, 1);
const MIN = 60_000;

function candle(t: number, c: string, interval = MIN): CandleRow {
  return { t, T: t + interval - 1, o: c, h: c, l: c, c, v: "1.5", n: 3 };
}

describe("layout", () => {
  it("splits main-dex and HIP-3 coins into Hive partitions that cannot leave their folder", () => {
    expect(splitCoin("ETH")).toEqual({ dex: "main", name: "ETH" });
    expect(splitCoin("yex:VXX")).toEqual({ dex: "yex", name: "VXX" });
    expect(() => splitCoin(":X")).toThrow(/invalid coin/);
    expect(coinDir("/d", "mainnet", "candles_1m", "xyz:SPCX")).toBe(
      "/d/market/mainnet/candles_1m/dex=xyz/coin=SPCX",
    );
    expect(coinDir("/d", "mainnet", "trades", "PURR/USDC")).toBe(
      "/d/market/mainnet/trades/dex=main/coin=PURR%2FUSDC",
    );
    expect(coinDir("/d", "mainnet", "trades", "../x")).toBe("/d/market/mainnet/trades/dex=main/coin=..%2Fx");
  });

  it("the UTC day of a time", () => {
    expect(dayOf(DAY0 + DAY_MS - 1)).toBe("2026-01-01");
    expect(dayOf(DAY0 + DAY_MS)).toBe("2026-01-02");
    expect(dayOf(DAY0 - 1)).toBe("2025-12-31");
  });
});

describe("decimal strings through DOUBLE columns", () => {
  const decimalText = fc
    .tuple(
      fc.boolean(),
      fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 15 }),
      fc.integer({ min: 0, max: 20 }),
    )
    .map(([negative, digits, scale]) => {
      const s = digits.join("").padStart(scale + 1, "0");
      const text = scale ? `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}` : s;
      return negative ? `-${text}` : text;
    });

  it("a decimal of at most 15 significant digits comes back as the same decimal, never in exponent form", () => {
    fc.assert(
      fc.property(decimalText, (text) => {
        const back = doubleToDecimal(decimalToDouble(text));
        expect(back).toBe(canonicalDecimal(text));
        expect(new Decimal(back).eq(new Decimal(text))).toBe(true);
        expect(back).not.toMatch(/e/);
      }),
      { numRuns: 5000 },
    );
  });

  it("canonical exchange strings come back byte for byte; trailing zeros are dropped", () => {
    for (const s of ["0.00000012", "-0.0003367378", "104250", "123456789012345", "0.0000125"])
      expect(doubleToDecimal(decimalToDouble(s))).toBe(s);
    expect(doubleToDecimal(decimalToDouble("29258.0"))).toBe("29258");
    expect(canonicalDecimal("-0.000")).toBe("0");
  });

  it("refuses what a double cannot hold exactly, and what is not a decimal", () => {
    expect(() => decimalToDouble("1234567890.123456789")).toThrow(/significant digits/);
    expect(() => decimalToDouble("1e5")).toThrow(/not a decimal/);
    expect(() => decimalToDouble("")).toThrow(/not a decimal/);
  });
});

describe("candles", () => {
  const target = { root, network: "test", coin: "ETH", interval: "1m" as const };

  it("round-trips across a day boundary: sorted, in range, one per open time", async () => {
    const rows = [
      candle(DAY0 + DAY_MS + MIN, "3001.5"),
      candle(DAY0 + DAY_MS - MIN, "2999"),
      candle(DAY0, "3000.25"),
    ];
    await writeCandles(target, rows);
    const all = await readCandles({ ...target, fromMs: DAY0 - DAY_MS, toMs: DAY0 + 3 * DAY_MS });
    expect(all.map((r) => r.c)).toEqual(["3000.25", "2999", "3001.5"]);
    expect(all[0]).toEqual(candle(DAY0, "3000.25"));
    const part = await readCandles({ ...target, fromMs: DAY0 + 1, toMs: DAY0 + DAY_MS + MIN });
    expect(part.map((r) => r.t)).toEqual([DAY0 + DAY_MS - MIN]);
    const dir = coinDir(root, "test", "candles_1m", "ETH");
    expect(readdirSync(dir).sort()).toEqual(["2026-01-01.parquet", "2026-01-02.parquet"]);
    // An open-ended range opens only the days held.
    const t0 = performance.now();
    expect(await readCandles({ ...target, fromMs: 0, toMs: 8.64e15 })).toEqual(all);
    expect(performance.now() - t0).toBeLessThan(2_000);
  });

  it("a second write merges into the day: new candles added, same open time replaced, no temp file left", async () => {
    await writeCandles(target, [candle(DAY0, "3100"), candle(DAY0 + MIN, "3101")]);
    const all = await readCandles({ ...target, fromMs: DAY0, toMs: DAY0 + DAY_MS });
    expect(all.map((r) => [r.t - DAY0, r.c])).toEqual([
      [0, "3100"],
      [MIN, "3101"],
      [DAY_MS - MIN, "2999"],
    ]);
    expect(readdirSync(coinDir(root, "test", "candles_1m", "ETH")).filter((f) => f.includes("tmp"))).toEqual(
      [],
    );
  });

  it("writes the column types a data scientist expects", async () => {
    const file = join(coinDir(root, "test", "candles_1m", "ETH"), "2026-01-01.parquet");
    const bytes = readFileSync(file);
    const meta = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    const types = Object.fromEntries(
      parquetSchema(meta).children.map((c) => [c.element.name, [c.element.type, c.element.converted_type]]),
    );
    expect(types.t).toEqual(["INT64", "TIMESTAMP_MILLIS"]);
    expect(types.o).toEqual(["DOUBLE", undefined]);
    expect(types.n).toEqual(["INT32", undefined]);
  });

  it("HIP-3 coins and intervals are separate files; nothing held reads empty", async () => {
    await writeCandles({ root, network: "test", coin: "yex:VXX", interval: "1h" }, [
      candle(DAY0, "21.5", 3_600_000),
    ]);
    const q = { root, network: "test", coin: "yex:VXX", fromMs: DAY0, toMs: DAY0 + DAY_MS };
    expect((await readCandles({ ...q, interval: "1h" })).map((r) => r.c)).toEqual(["21.5"]);
    expect(await readCandles({ ...q, interval: "1m" })).toEqual([]);
    expect(await readCandles({ ...q, coin: "BTC", interval: "1h" })).toEqual([]);
  });

  it("refuses a value it cannot store exactly, leaving the day as it was", async () => {
    await expect(writeCandles(target, [candle(DAY0, "3000.123456789012345")])).rejects.toThrow(
      /significant digits/,
    );
    expect((await readCandles({ ...target, fromMs: DAY0, toMs: DAY0 + 1 }))[0]!.c).toBe("3100");
  });
});

describe("funding, trades, books, asset contexts", () => {
  const q = { root, network: "test", coin: "BTC", fromMs: DAY0, toMs: DAY0 + DAY_MS };

  it("funding round-trips", async () => {
    const rows = [
      { t: DAY0 + 3_600_000, rate: "-0.00000045", premium: "-0.0003367378" },
      { t: DAY0, rate: "0.0000125", premium: "0.0001" },
    ];
    await writeFunding(q, rows);
    expect(await readFunding(q)).toEqual([rows[1], rows[0]]);
  });

  it("trades: one per tid, ties in time keep their order", async () => {
    const a = { t: DAY0 + 5, px: "104250", sz: "0.01", side: "B" as const, tid: "9" };
    const b = { t: DAY0 + 5, px: "104251", sz: "0.2", side: "A" as const, tid: "3" };
    await writeTrades(q, [a, b]);
    await writeTrades(q, [{ ...b, sz: "0.3" }]);
    expect(await readTrades(q)).toEqual([a, { ...b, sz: "0.3" }]);
  });

  it("books keep their level strings exactly", async () => {
    const book: BookRow = {
      t: DAY0 + 7,
      bids: [["104250.0", "1.50"]],
      asks: [
        ["104251", "0.2"],
        ["104252", "3"],
      ],
    };
    await writeBooks(q, [book]);
    expect(await readBooks(q)).toEqual([book]);
  });

  it("asset contexts keep nulls", async () => {
    const ctx = {
      t: DAY0 + 9,
      funding: "0.0000125",
      openInterest: "12345.6",
      oraclePx: "104200",
      markPx: "104210",
      midPx: null,
      premium: "0.0001",
      dayNtlVlm: "1234567890.5",
      prevDayPx: "103000",
    };
    await writeAssetCtxs(q, [ctx]);
    expect(await readAssetCtxs(q)).toEqual([ctx]);
  });
});

describe("the day's journal", () => {
  it("is read with the day's Parquet file; a journal row wins; a torn last line is skipped", async () => {
    const target = { root, network: "test", coin: "SOL" };
    const q = { ...target, fromMs: DAY0, toMs: DAY0 + DAY_MS };
    await writeTrades(target, [{ t: DAY0 + 1, px: "150", sz: "1", side: "B", tid: "1" }]);
    const dir = coinDir(root, "test", "trades", "SOL");
    mkdirSync(dir, { recursive: true });
    const journal = journalFile(dir, "2026-01-01");
    appendFileSync(
      journal,
      journalLine(TRADES_SPEC, { t: DAY0 + 2, px: "150.50", sz: "2", side: "A", tid: "2" }),
    );
    appendFileSync(
      journal,
      journalLine(TRADES_SPEC, { t: DAY0 + 1, px: "151", sz: "1", side: "B", tid: "1" }),
    );
    appendFileSync(journal, '{"t": 3, "px": "15');
    expect((await readTrades(q)).map((r) => [r.tid, r.px])).toEqual([
      ["1", "151"],
      ["2", "150.5"],
    ]);
  });

  it("candles as number columns are the rows readCandles gives, journal and range cuts included", async () => {
    const target = { root, network: "test", coin: "AVAX", interval: "1m" as const };
    await writeCandles(target, [
      candle(DAY0 - MIN, "20.5"),
      candle(DAY0, "21.25"),
      candle(DAY0 + MIN, "0.000012345"),
      candle(DAY0 + DAY_MS, "123456789.123456"),
      candle(DAY0 + DAY_MS + MIN, "22"),
    ]);
    const dir = coinDir(root, "test", "candles_1m", "AVAX");
    appendFileSync(
      journalFile(dir, "2026-01-02"),
      journalLine(candleSpecOf("1m"), candle(DAY0 + DAY_MS, "23.10")),
    );
    appendFileSync(
      journalFile(dir, "2026-01-02"),
      journalLine(candleSpecOf("1m"), candle(DAY0 + 2 * MIN + DAY_MS, "24")),
    );
    for (const [fromMs, toMs] of [
      [0, 8.64e15],
      [DAY0, DAY0 + DAY_MS + MIN],
      [DAY0 + 1, DAY0 + DAY_MS + 2 * MIN + 1],
      [DAY0 + 5 * MIN, DAY0 + 6 * MIN],
    ] as const) {
      const q = { ...target, fromMs, toMs };
      const rows = await readCandles(q);
      const columns = await readCandleColumns(q);
      expect(columns.t).toBeInstanceOf(Float64Array);
      expect(Array.from(columns.t)).toEqual(rows.map((r) => r.t));
      for (const k of ["o", "h", "l", "c", "v"] as const)
        expect(Array.from(columns[k], doubleToDecimal)).toEqual(rows.map((r) => r[k]));
    }
    expect(
      Array.from((await readCandleColumns({ ...target, fromMs: 0, toMs: 8.64e15 })).c, doubleToDecimal),
    ).toEqual(["20.5", "21.25", "0.000012345", "23.1", "22", "24"]);
  });

  it("refuses a row at journal time that compaction could not store", () => {
    expect(() =>
      journalLine(TRADES_SPEC, { t: DAY0, px: "1.12345678901234567", sz: "1", side: "B", tid: "x" }),
    ).toThrow(/significant digits/);
  });
});
