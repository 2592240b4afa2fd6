import { appendFileSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pairRoundTrips } from "../../src/review/round-trips.ts";
import { parseTradeLog, type TradeLogMode, type TradeRecord } from "../../src/review/trade-log.ts";

export interface Line {
  tick?: number;
  oid?: string;
  instrument?: string;
  side: string;
  price: string | number;
  quantity: string | number;
  timestamp_ms: number;
  fee?: string | number;
  strategy?: string;
  meta?: string;
  signal_score?: number;
}

let oidSeq = 0;

/** A trades.jsonl line in the contract format (money as decimal strings). */
export function line(l: Line): Record<string, unknown> {
  oidSeq++;
  return {
    tick: l.tick ?? oidSeq,
    oid: l.oid ?? `oid-${oidSeq}`,
    instrument: l.instrument ?? "ETH-PERP",
    side: l.side,
    price: String(l.price),
    quantity: String(l.quantity),
    timestamp_ms: l.timestamp_ms,
    fee: String(l.fee ?? "0"),
    strategy: l.strategy ?? "wolf",
    ...(l.meta !== undefined ? { meta: l.meta } : {}),
    ...(l.signal_score !== undefined ? { signal_score: l.signal_score } : {}),
  };
}

export function records(lines: Line[], mode: TradeLogMode = "wolf"): TradeRecord[] {
  return parseTradeLog(lines.map((l) => JSON.stringify(line(l))).join("\n"), mode).trades;
}

export function pair(lines: Line[]) {
  const trades = records(lines);
  return { trades, ...pairRoundTrips(trades) };
}

/** A closed long (or short) round trip in two lines. */
export function trip(opts: {
  entry: number;
  exit: number;
  qty?: number;
  fee?: number;
  t?: number;
  hold?: number;
  direction?: "long" | "short";
  instrument?: string;
  strategy?: string;
  source?: string;
  exitMeta?: string;
}): Line[] {
  const t = opts.t ?? 1_000;
  const long = (opts.direction ?? "long") === "long";
  const common = {
    instrument: opts.instrument,
    strategy: opts.strategy,
    quantity: opts.qty ?? 1,
    fee: opts.fee ?? 0,
  };
  return [
    {
      ...common,
      side: long ? "buy" : "sell",
      price: opts.entry,
      timestamp_ms: t,
      ...(opts.source ? { meta: `entry:${opts.source}` } : {}),
    },
    {
      ...common,
      side: long ? "sell" : "buy",
      price: opts.exit,
      timestamp_ms: t + (opts.hold ?? 60_000),
      ...(opts.exitMeta !== undefined ? { meta: opts.exitMeta } : {}),
    },
  ];
}

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), "hl-review-"));
}

export function writeTrades(dataDir: string, lines: Line[], mode: TradeLogMode = "wolf"): void {
  const path = join(dataDir, mode, "trades.jsonl");
  mkdirSync(dirname(path), { recursive: true });
  appendFileSync(path, lines.map((l) => `${JSON.stringify(line(l))}\n`).join(""));
}
