import { createHash } from "node:crypto";
import { isCandleColumns, type ReplayHistory } from "../market-history.ts";

/**
 * A digest of everything a run reads from the history (and the size decimals derived from it). A
 * queued sweep's workers load the history from their own data directory; equal digests are what
 * makes their results those of the submitter's data, and a worker with other data refuses the job.
 */
export function historyFingerprint(history: ReplayHistory, szDecimals: number): string {
  const h = createHash("sha256");
  h.update(JSON.stringify({ interval: history.interval, szDecimals }));
  const c = history.candles;
  if (isCandleColumns(c)) {
    h.update("columns");
    for (const col of [c.t, c.o, c.h, c.l, c.c, c.v])
      h.update(new Uint8Array(col.buffer, col.byteOffset, col.byteLength));
  } else {
    h.update(JSON.stringify(c));
  }
  h.update(JSON.stringify(history.funding));
  h.update(JSON.stringify(history.trades ?? null));
  h.update(JSON.stringify(history.books ?? null));
  return h.digest("hex");
}
