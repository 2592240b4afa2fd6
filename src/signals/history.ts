import { join } from "node:path";
import { quarantine, readJson, writeJsonAtomic } from "../store/atomic.ts";

/** `$DATA_DIR/scanner/scan-history.json` and `$DATA_DIR/movers/scan-history.json` (contract paths). */
export const scannerHistoryPath = (dataDir: string) => join(dataDir, "scanner", "scan-history.json");
export const moversHistoryPath = (dataDir: string) => join(dataDir, "movers", "scan-history.json");

interface HistoryRead<T> {
  entries: T[];
  /** set when a corrupt file was moved aside (kept for inspection) instead of silently dropped */
  quarantined?: string;
}

/** A JSON array of scans, oldest first. A corrupt file is moved aside and reported. */
export function readHistory<T>(path: string): HistoryRead<T> {
  const r = readJson<unknown>(path);
  if (r.kind === "missing") return { entries: [] };
  if (r.kind === "ok" && Array.isArray(r.value)) return { entries: r.value as T[] };
  return { entries: [], quarantined: quarantine(path) };
}

/** Append one scan and keep the last `cap`, written atomically. Returns the kept entries. */
export function appendHistory<T>(path: string, prior: readonly T[], entry: T, cap: number): T[] {
  const kept = [...prior, entry].slice(-cap);
  writeJsonAtomic(path, kept);
  return kept;
}
