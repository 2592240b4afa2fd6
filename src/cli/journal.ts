import type { Command } from "commander";
import { dataDir } from "../config/env.ts";
import { UserError } from "../core/errors.ts";
import { findJournalEntry, readJournal } from "../review/journal.ts";
import type { JournalEntry } from "../review/journal-entry.ts";

function line(e: JournalEntry): string {
  const closed = new Date(e.close_ts).toISOString().slice(0, 16).replace("T", " ");
  const pnl = e.pnl.startsWith("-") ? e.pnl : `+${e.pnl}`;
  return `${closed}  ${e.instrument.padEnd(12)} ${e.direction.padEnd(5)} ${`$${pnl}`.padStart(11)} ${`${e.roe_pct}%`.padStart(8)}  ${e.signal_quality.padEnd(4)}  ${e.entry_source} → ${e.close_reason}  [${e.entry_id}]`;
}

function detail(e: JournalEntry): string {
  const rows: [string, string][] = [
    ["Entry id", e.entry_id],
    ["Instrument", `${e.instrument} ${e.direction}`],
    ["Entry → exit", `${e.entry_price} → ${e.exit_price} (size ${e.size})`],
    ["PnL", `$${e.pnl} (${e.roe_pct}% ROE${e.peak_roe_pct === null ? "" : `, peak ${e.peak_roe_pct}%`})`],
    ["Held", `${(e.holding_ms / 3_600_000).toFixed(1)}h`],
    ["Signal", `${e.entry_source}${e.entry_signal_score === null ? "" : ` (score ${e.entry_signal_score})`}`],
    ["Quality", e.signal_quality],
    ["Close reason", e.close_reason],
    ["Entry reasoning", e.entry_reasoning],
    ["Exit reasoning", e.exit_reasoning],
    ["Retrospective", e.retrospective],
  ];
  return `${rows.map(([k, v]) => `${k.padEnd(16)} ${v}`).join("\n")}\n`;
}

/** `hl journal view | entry`: the per-position trade journal. */
export function register(program: Command): void {
  const journal = program
    .command("journal")
    .description("Trade journal: one structured record per closed position");

  journal
    .command("view")
    .description("List journal entries, most recently closed first")
    .option("-d, --date <date>", "only positions closed on this UTC day (YYYY-MM-DD)")
    .option("-n, --limit <n>", "how many entries", "20")
    .option("--json", "print JSON for machines")
    .option("--data-dir <dir>", "data directory (default: DATA_DIR, else ./data)")
    .action((opts: { date?: string; limit: string; json?: boolean; dataDir?: string }) => {
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1)
        throw new UserError(`--limit must be a positive integer, got "${opts.limit}"`);
      const entries = readJournal({ dataDir: opts.dataDir ?? dataDir(), date: opts.date ?? null, limit });
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(entries, null, 2)}\n`);
        return;
      }
      if (entries.length === 0) {
        process.stdout.write(
          opts.date ? `No journal entries closed on ${opts.date}.\n` : "No journal entries yet.\n",
        );
        return;
      }
      for (const e of entries) process.stdout.write(`${line(e)}\n`);
    });

  journal
    .command("entry <id>")
    .description("Show one journal entry in full")
    .option("--json", "print JSON for machines")
    .option("--data-dir <dir>", "data directory (default: DATA_DIR, else ./data)")
    .action((id: string, opts: { json?: boolean; dataDir?: string }) => {
      const entry = findJournalEntry(opts.dataDir ?? dataDir(), id);
      if (!entry) throw new UserError(`No journal entry "${id}". List ids with 'hl journal view'.`);
      process.stdout.write(opts.json ? `${JSON.stringify(entry, null, 2)}\n` : detail(entry));
    });
}
