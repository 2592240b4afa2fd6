import type { FillJournal, KvStore, TradeRecord } from "../engine/state-store.ts";

/** The engine's state held in memory (a backtest writes no files while it runs). */
export class MemoryKvStore implements KvStore {
  private entries: Record<string, string> = {};

  readAll(): Record<string, string> {
    return { ...this.entries };
  }

  save(entries: Record<string, unknown>): void {
    for (const [k, v] of Object.entries(entries)) this.entries[k] = JSON.stringify(v);
  }

  close(): void {}
}

/** The engine's fill journal held in memory. */
export class MemoryFillJournal implements FillJournal {
  readonly records: TradeRecord[] = [];

  fillIdsSince(): Set<string> {
    return new Set();
  }

  append(records: readonly TradeRecord[]): void {
    for (const r of records) this.records.push(r);
  }
}
