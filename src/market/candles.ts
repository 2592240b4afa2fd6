import { type DatasetSpec, readRange, readRangeNumbers, writeRows } from "./day-store.ts";
import type { ColumnValues } from "./parquet-codec.ts";
import {
  type CandleColumns,
  type CandleInterval,
  type CandleRow,
  candleDataset,
  type MarketQuery,
  type MarketTarget,
} from "./types.ts";

function candleSpec(interval: CandleInterval): DatasetSpec<CandleRow> {
  return {
    dataset: candleDataset(interval),
    columns: [
      { name: "t", kind: "timestamp" },
      { name: "T", kind: "timestamp" },
      { name: "o", kind: "decimal" },
      { name: "h", kind: "decimal" },
      { name: "l", kind: "decimal" },
      { name: "c", kind: "decimal" },
      { name: "v", kind: "decimal" },
      { name: "n", kind: "int" },
    ],
    key: (row) => row.t,
    rowAt: (v: ColumnValues, i: number): CandleRow => ({
      t: v.t![i] as number,
      T: v.T![i] as number,
      o: v.o![i] as string,
      h: v.h![i] as string,
      l: v.l![i] as string,
      c: v.c![i] as string,
      v: v.v![i] as string,
      n: v.n![i] as number,
    }),
  };
}

const SPECS: Record<CandleInterval, DatasetSpec<CandleRow>> = {
  "1m": candleSpec("1m"),
  "5m": candleSpec("5m"),
  "1h": candleSpec("1h"),
};

export function candleSpecOf(interval: CandleInterval): DatasetSpec<CandleRow> {
  return SPECS[interval];
}

/** Candles opening in [fromMs, toMs), sorted by open time, one per open time. */
export function readCandles(q: MarketQuery & { interval: CandleInterval }): Promise<CandleRow[]> {
  return readRange(SPECS[q.interval], q);
}

/** The same candles as readCandles, as number columns (the stored doubles, no decimal strings). */
export async function readCandleColumns(
  q: MarketQuery & { interval: CandleInterval },
): Promise<CandleColumns> {
  const c = await readRangeNumbers(SPECS[q.interval], q, ["t", "o", "h", "l", "c", "v"]);
  return { t: c.t!, o: c.o!, h: c.h!, l: c.l!, c: c.c!, v: c.v! };
}

/** Merges candles into their day files; a candle replaces a stored one with the same open time. */
export function writeCandles(
  target: MarketTarget & { interval: CandleInterval },
  rows: readonly CandleRow[],
): Promise<void> {
  return writeRows(SPECS[target.interval], target, rows);
}
