import { UserError } from "../core/errors.ts";

import { doubleToDecimal } from "../market/decimal-double.ts";
import type {
  BookRow,
  CandleColumns,
  CandleInterval,
  CandleRow,
  FundingRow,
  TradeRow,
} from "../market/types.ts";

export type { BookRow, CandleRow, FundingRow, TradeRow };

type BacktestInterval = CandleInterval;

export const INTERVAL_MS: Readonly<Record<BacktestInterval, number>> = {
  "1m": 60_000,
  "5m": 300_000,
  "1h": 3_600_000,
};

/** What a backtest replays: one instrument's candles (oldest first), its hourly funding, and any recorded trades and books. */
export interface ReplayHistory {
  interval: BacktestInterval;
  /** Rows of decimal strings, or the same as number columns (what the store reads: no strings to parse back). */
  candles: readonly CandleRow[] | CandleColumns;
  funding: readonly FundingRow[];
  /** Recorded trades and l2 book snapshots (oldest first), where there are any. */
  trades?: readonly TradeRow[];
  books?: readonly BookRow[];
}

export function isCandleColumns(candles: ReplayHistory["candles"]): candles is CandleColumns {
  return !Array.isArray(candles);
}

/**
 * Candles as parallel number arrays for the per-candle loop. Money computed from a candle (funding
 * marks, the last close of the report) uses its exact decimal: the row's string, or for number
 * columns the double's shortest decimal, which is the decimal the store holds (decimal-double.ts).
 * Candles must be one interval apart or more, oldest first.
 */
export class CandleSeries {
  readonly length: number;
  readonly t: Float64Array;
  readonly o: Float64Array;
  readonly h: Float64Array;
  readonly l: Float64Array;
  readonly c: Float64Array;
  readonly v: Float64Array;
  private readonly rows: readonly CandleRow[] | undefined;

  constructor(
    candles: readonly CandleRow[] | CandleColumns,
    readonly intervalMs: number,
  ) {
    if (isCandleColumns(candles)) {
      this.rows = undefined;
      this.length = candles.t.length;
      ({ t: this.t, o: this.o, h: this.h, l: this.l, c: this.c, v: this.v } = candles);
    } else {
      const rows = candles;
      const n = rows.length;
      this.rows = rows;
      this.length = n;
      this.t = new Float64Array(n);
      this.o = new Float64Array(n);
      this.h = new Float64Array(n);
      this.l = new Float64Array(n);
      this.c = new Float64Array(n);
      this.v = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const r = rows[i] as CandleRow;
        this.t[i] = r.t;
        this.o[i] = Number(r.o);
        this.h[i] = Number(r.h);
        this.l[i] = Number(r.l);
        this.c[i] = Number(r.c);
        this.v[i] = Number(r.v);
      }
    }
    const t = this.t;
    for (let i = 1; i < this.length; i++)
      if (t[i]! < t[i - 1]! + intervalMs)
        throw new UserError(`candles out of order or overlapping at ${new Date(t[i]!).toISOString()}`);
  }

  /** Candle i's open as an exact decimal string. */
  openText(i: number): string {
    return this.rows ? this.rows[i]!.o : doubleToDecimal(this.o[i]!);
  }

  /** Candle i's close as an exact decimal string. */
  closeText(i: number): string {
    return this.rows ? this.rows[i]!.c : doubleToDecimal(this.c[i]!);
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
