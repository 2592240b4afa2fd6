import { recordClosedPosition } from "../review/journal.ts";
import type { JournalEntry } from "../review/journal-entry.ts";
import { rememberSession, type SessionSnapshot } from "../review/memory.ts";
import { configuredVaultContext, vaultNoteFor } from "../review/vault-notes.ts";
import type { ClosedSlot, Slot, WolfState } from "./state.ts";

/**
 * The trader's records of a WOLF slot that closed: one journal entry (and a `notable_trade` memory
 * event when it moved more than a tenth of the slot margin). Never throws into the trading loop:
 * a record that cannot be written is reported through `log`.
 */
export function journalClosedSlot(
  dataDir: string,
  slot: Slot,
  record: ClosedSlot,
  marginPerSlot: number,
  log: (line: string) => void,
): JournalEntry | undefined {
  try {
    return recordClosedPosition(
      dataDir,
      {
        instrument: record.instrument,
        direction: record.side,
        entry_price: record.entry_price,
        exit_price: record.exit_price,
        size: record.entry_size,
        pnl: record.realized_pnl,
        roe_pct: record.roe_pct,
        peak_roe_pct: Math.max(slot.high_water_roe, record.roe_pct),
        entry_ts: record.opened_at_ms,
        close_ts: record.closed_at_ms,
        entry_source: record.entry_source,
        entry_signal_score: slot.entry_signal_score > 0 ? slot.entry_signal_score : null,
        close_reason: record.close_reason,
        notes: vaultNotes(record),
      },
      { marginPerSlot },
    );
  } catch (e) {
    log(`journal entry for ${record.instrument} not written: ${(e as Error).message}`);
    return undefined;
  }
}

/** What the notes vault (OBSIDIAN_VAULT) says about the closed position's instrument, if anything. */
function vaultNotes(record: ClosedSlot): string | null {
  const ctx = configuredVaultContext();
  return ctx ? vaultNoteFor(ctx, record.instrument, record.side) : null;
}

/** What a WOLF session looked like, for the `session_start` / `session_end` memory events. */
function wolfSessionSnapshot(state: WolfState): SessionSnapshot {
  return {
    tick_count: state.tick_count,
    total_pnl: state.total_pnl,
    active_slots: state.slots.filter((s) => s.status !== "empty").length,
    total_trades: state.total_trades,
  };
}

/** Remember a WOLF session's start or end; a failure is reported, never thrown. */
export function rememberWolfSession(
  dataDir: string,
  type: "session_start" | "session_end",
  state: WolfState,
  nowMs: number,
  log: (line: string) => void,
): void {
  try {
    rememberSession(dataDir, type, wolfSessionSnapshot(state), nowMs);
  } catch (e) {
    log(`${type} memory event not written: ${(e as Error).message}`);
  }
}
