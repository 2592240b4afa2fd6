import { type DatasetSpec, readRange, writeRows } from "./day-store.ts";
import type { ColumnValues } from "./parquet-codec.ts";
import type { BookRow, MarketQuery, MarketTarget } from "./types.ts";

/** Levels are JSON arrays of [px, sz] decimal strings, exactly as the exchange sent them. */
export const BOOKS_SPEC: DatasetSpec<BookRow> = {
  dataset: "l2book",
  columns: [
    { name: "t", kind: "timestamp" },
    { name: "bids", kind: "json" },
    { name: "asks", kind: "json" },
  ],
  key: (row) => row.t,
  rowAt: (v: ColumnValues, i: number): BookRow => ({
    t: v.t![i] as number,
    bids: v.bids![i] as [string, string][],
    asks: v.asks![i] as [string, string][],
  }),
};

/** Book snapshots in [fromMs, toMs), sorted by time, one per time. */
export function readBooks(q: MarketQuery): Promise<BookRow[]> {
  return readRange(BOOKS_SPEC, q);
}

export function writeBooks(target: MarketTarget, rows: readonly BookRow[]): Promise<void> {
  return writeRows(BOOKS_SPEC, target, rows);
}
