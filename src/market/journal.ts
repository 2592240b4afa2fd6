import { mkdir, open, readdir, rm } from "node:fs/promises";
import {
  type DatasetSpec,
  journalLine,
  mergeRows,
  readJournalDay,
  readParquetDay,
  toColumns,
  writeFileAtomic,
} from "./day-store.ts";
import { dayFile, dayOf, dayOfFileName, journalFile } from "./layout.ts";
import { encodeParquet } from "./parquet-codec.ts";

/**
 * The append-only journal of one dataset of one coin: Parquet files cannot be appended to, so rows
 * recorded live go to `<day>.journal.jsonl` (one JSON row per line, flushed to disk by `flush`) and
 * are compacted into `<day>.parquet` later. Readers read both, so nothing flushed is invisible. A
 * line torn by a crash is skipped by the reader and fenced off by the next append.
 */
export class DatasetJournal<R extends { t: number }> {
  private readonly pending = new Map<string, string[]>();
  private dirReady = false;

  constructor(
    private readonly spec: DatasetSpec<R>,
    private readonly dir: string,
  ) {}

  /** Queues a row for the next flush (refusing one compaction could not store). */
  add(row: R): void {
    const line = journalLine(this.spec, row);
    const day = dayOf(row.t);
    const lines = this.pending.get(day);
    if (lines) lines.push(line);
    else this.pending.set(day, [line]);
  }

  /** Appends the queued rows to their days' journals and waits until they are on disk; returns those days. */
  async flush(): Promise<string[]> {
    if (this.pending.size === 0) return [];
    if (!this.dirReady) {
      await mkdir(this.dir, { recursive: true });
      this.dirReady = true;
    }
    const batches = [...this.pending];
    this.pending.clear();
    for (const [day, lines] of batches) {
      const path = journalFile(this.dir, day);
      const handle = await open(path, "a+");
      try {
        const size = (await handle.stat()).size;
        let text = lines.join("");
        if (size > 0) {
          const last = Buffer.alloc(1);
          await handle.read(last, 0, 1, size - 1);
          if (last[0] !== 0x0a) text = `\n${text}`; // a crash tore the last line: start on a fresh one
        }
        await handle.write(text);
        await handle.datasync();
      } finally {
        await handle.close();
      }
    }
    return batches.map(([day]) => day);
  }

  /** Compacts every journal on disk of a day before `beforeDay` ("YYYY-MM-DD"), e.g. at UTC midnight. */
  async compactBefore(beforeDay: string): Promise<string[]> {
    const done: string[] = [];
    for (const day of await this.journalDays()) {
      if (day >= beforeDay) continue;
      await compactDay(this.spec, this.dir, day);
      done.push(day);
    }
    return done;
  }

  /** Compacts every journal on disk (a clean stop). */
  async compactAll(): Promise<string[]> {
    return this.compactBefore("9999-12-31");
  }

  private async journalDays(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw err;
    }
    return names.flatMap((n) => {
      const f = dayOfFileName(n);
      return f?.journal ? [f.day] : [];
    });
  }
}

/** Merges a day's journal into its Parquet file (atomically), then removes the journal. */
async function compactDay<R extends { t: number }>(
  spec: DatasetSpec<R>,
  dir: string,
  day: string,
): Promise<void> {
  const journal = await readJournalDay(spec, dir, day);
  if (journal.length > 0) {
    const merged = mergeRows(spec, await readParquetDay(spec, dir, day), journal);
    await writeFileAtomic(dayFile(dir, day), encodeParquet(spec.columns, toColumns(spec, merged)));
  }
  // Replaying a journal is idempotent (rows are keyed), so a crash before this line loses nothing.
  await rm(journalFile(dir, day), { force: true });
}
