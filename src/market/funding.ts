import { type DatasetSpec, readRange, writeRows } from "./day-store.ts";
import type { ColumnValues } from "./parquet-codec.ts";
import type { FundingRow, MarketQuery, MarketTarget } from "./types.ts";

const FUNDING_SPEC: DatasetSpec<FundingRow> = {
  dataset: "funding",
  columns: [
    { name: "t", kind: "timestamp" },
    { name: "rate", kind: "decimal" },
    { name: "premium", kind: "decimal" },
  ],
  key: (row) => row.t,
  rowAt: (v: ColumnValues, i: number): FundingRow => ({
    t: v.t![i] as number,
    rate: v.rate![i] as string,
    premium: v.premium![i] as string,
  }),
};

/** Funding settlements in [fromMs, toMs), sorted by time. */
export function readFunding(q: MarketQuery): Promise<FundingRow[]> {
  return readRange(FUNDING_SPEC, q);
}

export function writeFunding(target: MarketTarget, rows: readonly FundingRow[]): Promise<void> {
  return writeRows(FUNDING_SPEC, target, rows);
}
