import { UserError } from "../core/errors.ts";
import type { RoundTrip } from "./ledger.ts";
import type { ReplayTape } from "./replay-venue.ts";

const BREAKDOWN_PERIODS = ["day", "week", "month"] as const;
export type BreakdownPeriod = (typeof BREAKDOWN_PERIODS)[number];

/** One period of the run: its equity change, and the trades closed in it. */
export interface BreakdownRow {
  /** "2026-01-05" (a day, or the Monday a week starts on) or "2026-01" (a month), UTC. */
  period: string;
  /** Equity change over the period, USD (from the per-candle equity samples, to the cent). */
  pnl_usd: string;
  /** That change over the equity at the period's start, %. */
  return_pct: number;
  trades: number;
  wins: number;
}

const DAY_MS = 86_400_000;

export function parseBreakdown(raw: string): BreakdownPeriod {
  if (!(BREAKDOWN_PERIODS as readonly string[]).includes(raw))
    throw new UserError(`--breakdown must be one of ${BREAKDOWN_PERIODS.join(", ")}, got "${raw}"`);
  return raw as BreakdownPeriod;
}

/** The breakdown as text lines, one per period. */
export function formatBreakdown(rows: readonly BreakdownRow[]): string[] {
  return [
    "By period:",
    ...rows.map(
      (r) =>
        `  ${r.period}  pnl ${r.pnl_usd} USD  return ${r.return_pct}%  trades ${r.trades} (${r.wins} won)`,
    ),
  ];
}

/** The UTC period a time falls in. */
export function periodOf(ms: number, by: BreakdownPeriod): string {
  const d = new Date(ms);
  if (by === "month") return d.toISOString().slice(0, 7);
  if (by === "day") return d.toISOString().slice(0, 10);
  // ISO weeks start on Monday.
  const day = Math.floor(ms / DAY_MS);
  const monday = day - ((new Date(day * DAY_MS).getUTCDay() + 6) % 7);
  return new Date(monday * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The run period by period: equity change from the last sample before the period (the starting
 * capital for the first) to its last sample, and the round trips closed in it (net of fees and funding).
 */
export function breakdown(
  tape: ReplayTape,
  trips: readonly RoundTrip[],
  capitalUsd: number,
  by: BreakdownPeriod,
): BreakdownRow[] {
  const rows: BreakdownRow[] = [];
  let startEquity = capitalUsd;
  for (let i = 0; i < tape.t.length; i++) {
    const period = periodOf(tape.t[i]!, by);
    const last = i === tape.t.length - 1 || periodOf(tape.t[i + 1]!, by) !== period;
    if (!last) continue;
    const end = capitalUsd + tape.pnl[i]!;
    const change = end - startEquity;
    rows.push({
      period,
      pnl_usd: change.toFixed(2),
      return_pct: startEquity > 0 ? Number(((change / startEquity) * 100).toFixed(6)) : 0,
      trades: 0,
      wins: 0,
    });
    startEquity = end;
  }
  const byPeriod = new Map(rows.map((r) => [r.period, r]));
  for (const t of trips) {
    if (t.closed_ms === null) continue;
    const row = byPeriod.get(periodOf(t.closed_ms, by));
    if (!row) continue;
    row.trades += 1;
    if (Number(t.net_pnl) > 0) row.wins += 1;
  }
  return rows;
}
