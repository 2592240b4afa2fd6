import { readFileSync } from "node:fs";
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

export function appendTrade(dataDir: string, t: TradeRecord): void {
  appendLines(tradesPath(dataDir), [JSON.stringify(t)]);
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
