import { type DatasetSpec, readRange, writeRows } from "./day-store.ts";
import type { ColumnValues } from "./parquet-codec.ts";
import type { AssetCtxRow, MarketQuery, MarketTarget } from "./types.ts";

export const ASSET_CTX_SPEC: DatasetSpec<AssetCtxRow> = {
  dataset: "asset_ctx",
  columns: [
    { name: "t", kind: "timestamp" },
    { name: "funding", kind: "decimal" },
    { name: "openInterest", kind: "decimal" },
    { name: "oraclePx", kind: "decimal" },
    { name: "markPx", kind: "decimal" },
    { name: "midPx", kind: "decimal", nullable: true },
    { name: "premium", kind: "decimal", nullable: true },
    { name: "dayNtlVlm", kind: "decimal" },
    { name: "prevDayPx", kind: "decimal" },
  ],
  key: (row) => row.t,
  rowAt: (v: ColumnValues, i: number): AssetCtxRow => ({
    t: v.t![i] as number,
    funding: v.funding![i] as string,
    openInterest: v.openInterest![i] as string,
    oraclePx: v.oraclePx![i] as string,
    markPx: v.markPx![i] as string,
    midPx: v.midPx![i] as string | null,
    premium: v.premium![i] as string | null,
    dayNtlVlm: v.dayNtlVlm![i] as string,
    prevDayPx: v.prevDayPx![i] as string,
  }),
};

/** Asset-context snapshots in [fromMs, toMs), sorted by time, one per time. */
export function readAssetCtxs(q: MarketQuery): Promise<AssetCtxRow[]> {
  return readRange(ASSET_CTX_SPEC, q);
}

export function writeAssetCtxs(target: MarketTarget, rows: readonly AssetCtxRow[]): Promise<void> {
  return writeRows(ASSET_CTX_SPEC, target, rows);
}
