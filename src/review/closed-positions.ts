import { dec } from "../core/decimal.ts";
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
