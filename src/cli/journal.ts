import type { Command } from "commander";
import { dataDir } from "../config/env.ts";
import { UserError } from "../core/errors.ts";
import { findJournalEntry, readJournal } from "../review/journal.ts";
import { journalDetail, journalLine, journalSummary } from "../review/journal-text.ts";

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
      for (const e of entries) process.stdout.write(`${journalLine(e)}\n`);
      process.stdout.write(`${journalSummary(entries)}\n`);
    });

  journal
    .command("entry <id>")
    .description("Show one journal entry in full")
    .option("--json", "print JSON for machines")
    .option("--data-dir <dir>", "data directory (default: DATA_DIR, else ./data)")
    .action((id: string, opts: { json?: boolean; dataDir?: string }) => {
      const entry = findJournalEntry(opts.dataDir ?? dataDir(), id);
      if (!entry) throw new UserError(`No journal entry "${id}". List ids with 'hl journal view'.`);
      process.stdout.write(opts.json ? `${JSON.stringify(entry, null, 2)}\n` : journalDetail(entry));
    });
}
