import { type DatasetSpec, readRange, writeRows } from "./day-store.ts";
import type { ColumnValues } from "./parquet-codec.ts";
import type { MarketQuery, MarketTarget, TradeRow } from "./types.ts";

export const TRADES_SPEC: DatasetSpec<TradeRow> = {
  dataset: "trades",
  columns: [
    { name: "t", kind: "timestamp" },
    { name: "px", kind: "decimal" },
    { name: "sz", kind: "decimal" },
    { name: "side", kind: "string" },
    { name: "tid", kind: "string" },
  ],
  key: (row) => row.tid,
  rowAt: (v: ColumnValues, i: number): TradeRow => ({
    t: v.t![i] as number,
    px: v.px![i] as string,
    sz: v.sz![i] as string,
    side: v.side![i] as "B" | "A",
    tid: v.tid![i] as string,
  }),
};

/** Trades in [fromMs, toMs), sorted by time (ties keep the order they were received in), one per tid. */
export function readTrades(q: MarketQuery): Promise<TradeRow[]> {
  return readRange(TRADES_SPEC, q);
}

export function writeTrades(target: MarketTarget, rows: readonly TradeRow[]): Promise<void> {
  return writeRows(TRADES_SPEC, target, rows);
}
