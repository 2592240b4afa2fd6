import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { appendLines } from "../store/append.ts";
import { tradesPath } from "./state.ts";

/** One executed fill, as the contract's `wolf/trades.jsonl` line (money as decimal strings). */
export interface TradeRecord {
  tick: number;
  /** the exchange's order id: unique per order (an entry and an exit never share one) */
  oid: string;
  instrument: string;
  side: "buy" | "sell";
  price: string;
  quantity: string;
  timestamp_ms: number;
  fee: string;
  strategy: "wolf";
  /** `entry:<source>` or the exit reason */
  meta: string;
  slot_id: number;
  cloid: string;
}

/** How much of the end of trades.jsonl is searched for a line already written for the same order. */
const DEDUP_TAIL_BYTES = 256 * 1024;

/**
 * Append one fill, once: a line with the same cloid (and oid) already at the end of the file is not
 * written again. A process killed between logging an entry and saving state.json re-logs it on restart
 * when the entry is resolved; this keeps that to one line. Lines without a cloid (fills found on the
 * exchange) are de-duplicated by their caller, by oid.
 */
export function appendTrade(dataDir: string, t: TradeRecord): void {
  const path = tradesPath(dataDir);
  if (t.cloid && tailHas(path, `"oid":${JSON.stringify(t.oid)}`, `"cloid":${JSON.stringify(t.cloid)}`))
    return;
  appendLines(path, [JSON.stringify(t)]);
}

/** Whether one line within the file's last DEDUP_TAIL_BYTES contains both markers. */
function tailHas(path: string, a: string, b: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return false;
  }
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - DEDUP_TAIL_BYTES);
    const buf = Buffer.alloc(size - start);
    readSync(fd, buf, 0, buf.length, start);
    return buf
      .toString("utf8")
      .split("\n")
      .some((line) => line.includes(a) && line.includes(b));
  } finally {
    closeSync(fd);
  }
}

/** Every readable line of trades.jsonl (a torn last line is skipped, not fatal). */
export function readTrades(dataDir: string): TradeRecord[] {
  let text: string;
  try {
    text = readFileSync(tradesPath(dataDir), "utf8");
  } catch {
    return [];
  }
  const out: TradeRecord[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as TradeRecord);
    } catch {
      // a partially written line after a crash
    }
  }
  return out;
}
