import { join } from "node:path";
import { dec, num } from "../core/decimal.ts";
import { UserError } from "../core/errors.ts";
import {
  buildJournalEntry,
  type ClosedPosition,
  type JournalEntry,
  journalEntrySchema,
} from "./journal-entry.ts";
import { appendJsonLine, readJsonLines } from "./jsonl.ts";
import { appendMemoryEvent } from "./memory.ts";
import { parseUtcDate, utcDate } from "./time.ts";

export function journalPath(dataDir: string): string {
  return join(dataDir, "journal", "entries.jsonl");
}

export function appendJournalEntry(dataDir: string, entry: JournalEntry): void {
  appendJsonLine(journalPath(dataDir), journalEntrySchema.parse(entry));
}

/** A closed trade is notable when its PnL moved more than this share of the slot's margin. */
const NOTABLE_SHARE_OF_MARGIN = "0.1";

/**
 * What the trading loop calls once per closed position: journal it and, when its PnL exceeds 10% of
 * the slot margin, remember it as a `notable_trade`. Returns the entry written.
 */
export function recordClosedPosition(
  dataDir: string,
  position: ClosedPosition,
  opts: { marginPerSlot?: number | string } = {},
): JournalEntry {
  const entry = buildJournalEntry(position);
  appendJournalEntry(dataDir, entry);
  const margin = opts.marginPerSlot === undefined ? null : dec(opts.marginPerSlot);
  if (margin?.gt(0) && dec(entry.pnl).abs().gt(margin.times(NOTABLE_SHARE_OF_MARGIN))) {
    const pnl = num(dec(entry.pnl), 4);
    appendMemoryEvent(dataDir, {
      event_type: "notable_trade",
      timestamp_ms: entry.close_ts,
      payload: {
        entry_id: entry.entry_id,
        instrument: entry.instrument,
        direction: entry.direction,
        pnl,
        roe_pct: entry.roe_pct,
        entry_source: entry.entry_source,
        close_reason: entry.close_reason,
      },
      summary: `Notable: ${entry.instrument} ${entry.direction} via ${entry.entry_source}, PnL ${pnl >= 0 ? "+" : ""}${pnl} (${entry.roe_pct}% ROE), exit=${entry.close_reason}`,
    });
  }
  return entry;
}

const DEFAULT_JOURNAL_LIMIT = 20;

interface ReadJournalOptions {
  dataDir: string;
  /** YYYY-MM-DD: only positions closed on that UTC day. */
  date?: string | null;
  limit?: number;
}

/** Journal entries, most recently closed first. */
export function readJournal(opts: ReadJournalOptions): JournalEntry[] {
  const limit = opts.limit ?? DEFAULT_JOURNAL_LIMIT;
  if (!Number.isInteger(limit) || limit < 1)
    throw new UserError(`limit must be a positive integer, got ${limit}`);
  if (opts.date) parseUtcDate(opts.date);
  const all = readJsonLines(journalPath(opts.dataDir), journalEntrySchema).records;
  return all
    .filter((e) => !opts.date || utcDate(e.close_ts) === opts.date)
    .sort((a, b) => b.close_ts - a.close_ts)
    .slice(0, limit);
}

/** The entry with this id (ids are `<instrument>-<entry_ts>`), or null. */
export function findJournalEntry(dataDir: string, entryId: string): JournalEntry | null {
  const all = readJsonLines(journalPath(dataDir), journalEntrySchema).records;
  return all.find((e) => e.entry_id === entryId) ?? null;
}

/** Every entry, oldest first, for reviews that need the full record (e.g. judge peak analysis). */
export function readAllJournalEntries(dataDir: string): JournalEntry[] {
  return readJsonLines(journalPath(dataDir), journalEntrySchema).records;
}
