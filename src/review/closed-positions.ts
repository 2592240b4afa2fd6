import { D, dec, num } from "../core/decimal.ts";
import type { JournalEntry } from "./journal-entry.ts";
import type { ClosedSignal } from "./judge-engine.ts";
import { closedSignals } from "./judge-engine.ts";
import { pairRoundTrips } from "./round-trips.ts";
import type { TradeRecord } from "./trade-log.ts";

/**
 * The closed positions every review tool counts, scores and reports ROE for, from one place.
 *
 * WOLF writes a journal entry when a slot closes, with the slot's own figures: ROE on the margin
 * (leverage included), the entry's signal score, the close reason. Those are the position's figures,
 * so the WOLF book is taken from the journal whenever it has entries. A book without a journal (the
 * single-strategy engine's fills) is paired first-in first-out from its fills, ROE then the price move
 * over the entry notional (no margin is known there). Pure.
 */
export function closedPositions(
  journal: readonly JournalEntry[],
  trades: readonly TradeRecord[],
): ClosedSignal[] {
  const fromJournal = journal.map(fromJournalEntry);
  const paired = trades.filter((t) => journal.length === 0 || t.mode !== "wolf");
  const { roundTrips, open } = pairRoundTrips(paired);
  return [...fromJournal, ...closedSignals(roundTrips, open)].sort((a, b) => a.closed_ts - b.closed_ts);
}

function fromJournalEntry(e: JournalEntry): ClosedSignal {
  return {
    id: e.entry_id,
    mode: "wolf",
    instrument: e.instrument,
    direction: e.direction,
    source: e.entry_source || "unknown",
    entry_score: e.entry_signal_score,
    pnl: dec(e.pnl),
    roe_pct: dec(e.roe_pct),
    holding_ms: e.holding_ms,
    close_reason: e.close_reason,
    closed_ts: e.close_ts,
  };
}

/** The figures a user compares across the journal, the judge, HOWL and MCP judge_report. */
export interface ClosedSummary {
  closed_positions: number;
  wins: number;
  losses: number;
  /** Wins over closed positions, %, 1 decimal. */
  win_rate: number;
  /** Net of fees, to the cent. */
  net_pnl: number;
  /** Mean ROE of the closed positions, %, 2 decimals. */
  mean_roe_pct: number;
}

/** One summary of closed positions (from `closedPositions`), for every review tool. Pure. */
export function summarizeClosed(positions: readonly ClosedSignal[]): ClosedSummary {
  let net = new D(0);
  let roe = new D(0);
  let wins = 0;
  let losses = 0;
  for (const p of positions) {
    net = net.plus(p.pnl);
    roe = roe.plus(p.roe_pct);
    if (p.pnl.gt(0)) wins++;
    else if (p.pnl.lt(0)) losses++;
  }
  const n = positions.length;
  return {
    closed_positions: n,
    wins,
    losses,
    win_rate: n === 0 ? 0 : num(new D(wins).div(n).times(100), 1),
    net_pnl: num(net, 2),
    mean_roe_pct: n === 0 ? 0 : num(roe.div(n), 2),
  };
}
