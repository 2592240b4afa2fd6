import { UserError } from "../core/errors.ts";

import type { BookRow, CandleInterval, CandleRow, FundingRow, TradeRow } from "../market/types.ts";

export type { BookRow, CandleRow, FundingRow, TradeRow };

export type BacktestInterval = CandleInterval;

export const INTERVAL_MS: Readonly<Record<BacktestInterval, number>> = {
  "1m": 60_000,
  "5m": 300_000,
  "1h": 3_600_000,
};

/** What a backtest replays: one instrument's candles (oldest first), its hourly funding, and any recorded trades and books. */
export interface ReplayHistory {
  interval: BacktestInterval;
  candles: readonly CandleRow[];
  funding: readonly FundingRow[];
  /** Recorded trades and l2 book snapshots (oldest first), where there are any. */
  trades?: readonly TradeRow[];
  books?: readonly BookRow[];
}

/**
 * Candles as parallel number arrays for the per-candle loop; the rows stay at hand for the decimal
 * strings (funding marks, the report). Rows must be one interval apart or more, oldest first.
 */
export class CandleSeries {
  readonly length: number;
  readonly t: Float64Array;
  readonly o: Float64Array;
  readonly h: Float64Array;
  readonly l: Float64Array;
  readonly c: Float64Array;
  readonly v: Float64Array;

  constructor(
    readonly rows: readonly CandleRow[],
    readonly intervalMs: number,
  ) {
    const n = rows.length;
    this.length = n;
    this.t = new Float64Array(n);
    this.o = new Float64Array(n);
    this.h = new Float64Array(n);
    this.l = new Float64Array(n);
    this.c = new Float64Array(n);
    this.v = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const r = rows[i] as CandleRow;
      if (i > 0 && r.t < this.t[i - 1]! + intervalMs)
        throw new UserError(`candles out of order or overlapping at ${new Date(r.t).toISOString()}`);
      this.t[i] = r.t;
      this.o[i] = Number(r.o);
      this.h[i] = Number(r.h);
      this.l[i] = Number(r.l);
      this.c[i] = Number(r.c);
      this.v[i] = Number(r.v);
    }
  }

  /** Index of the first candle opening at or after `ms` (length when none). */
  firstAtOrAfter(ms: number): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.t[mid]! < ms) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
