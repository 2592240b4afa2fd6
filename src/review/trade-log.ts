import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { type Dec, dec } from "../core/decimal.ts";

/** The two producers of `trades.jsonl`: the WOLF orchestrator and the single-strategy engine. */
export const TRADE_LOG_MODES = ["wolf", "cli"] as const;
export type TradeLogMode = (typeof TRADE_LOG_MODES)[number];

function tradeLogPath(dataDir: string, mode: TradeLogMode): string {
  return join(dataDir, mode, "trades.jsonl");
}

/** One fill as the review modules see it: decimals parsed, side normalised, identity made stable. */
export interface TradeRecord {
  /** Stable id: `<mode>|<oid>#<timestamp_ms>#<n>`, n counting repeats of the same (oid, time) pair in file order. */
  uid: string;
  mode: TradeLogMode;
  tick: number;
  oid: string;
  instrument: string;
  side: "buy" | "sell";
  price: Dec;
  quantity: Dec;
  timestamp_ms: number;
  fee: Dec;
  strategy: string;
  meta: string;
  /** Score of the signal that opened the position, when the producer recorded it. */
  signal_score: number | null;
}

interface SkippedLine {
  mode: TradeLogMode;
  line: number;
  reason: string;
}

const decimalField = z.union([z.string(), z.number()]).transform((v, ctx) => {
  try {
    const d = dec(v);
    if (d.isFinite()) return d;
  } catch {
    // fall through to the issue below
  }
  ctx.addIssue({ code: "custom", message: `not a decimal: ${String(v)}` });
  return z.NEVER;
});

/** Exchange and producers spell sides differently ("buy", "B", "bid"); anything else is refused, not guessed. */
const sideField = z.string().transform((v, ctx) => {
  const s = v.trim().toLowerCase();
  if (s === "buy" || s === "b" || s === "bid") return "buy" as const;
  if (s === "sell" || s === "s" || s === "a" || s === "ask") return "sell" as const;
  ctx.addIssue({ code: "custom", message: `unknown side "${v}"` });
  return z.NEVER;
});

const tradeLineSchema = z.object({
  tick: z.coerce.number().int().default(0),
  oid: z.union([z.string(), z.number()]).transform(String).default(""),
  instrument: z.string().min(1),
  side: sideField,
  price: decimalField,
  quantity: decimalField,
  timestamp_ms: z.coerce.number().int().nonnegative(),
  fee: decimalField.default(() => dec(0)),
  strategy: z.string().default(""),
  meta: z
    .string()
    .nullish()
    .transform((v) => v ?? ""),
  entry_signal_score: z.coerce.number().nullish(),
  signal_score: z.coerce.number().nullish(),
});

interface TradeLog {
  trades: TradeRecord[];
  skipped: SkippedLine[];
}

/**
 * Parse the text of a trades.jsonl file. A bad line is skipped and reported (with its line number),
 * never allowed to abort the whole review; a zero-quantity fill can never close anything, so it is skipped too.
 */
export function parseTradeLog(text: string, mode: TradeLogMode): TradeLog {
  const trades: TradeRecord[] = [];
  const skipped: SkippedLine[] = [];
  const seen = new Map<string, number>();
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]?.trim() ?? "";
    if (raw === "") continue;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      skipped.push({ mode, line: i + 1, reason: "not valid JSON" });
      continue;
    }
    const parsed = tradeLineSchema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      skipped.push({ mode, line: i + 1, reason: `${issue?.path.join(".") || "line"}: ${issue?.message}` });
      continue;
    }
    const t = parsed.data;
    if (t.quantity.lte(0)) {
      skipped.push({ mode, line: i + 1, reason: "quantity must be positive" });
      continue;
    }
    if (t.price.isNegative()) {
      skipped.push({ mode, line: i + 1, reason: "price must not be negative" });
      continue;
    }
    const identity = `${t.oid}#${t.timestamp_ms}`;
    const n = seen.get(identity) ?? 0;
    seen.set(identity, n + 1);
    trades.push({
      uid: `${mode}|${identity}#${n}`,
      mode,
      tick: t.tick,
      oid: t.oid,
      instrument: t.instrument,
      side: t.side,
      price: t.price,
      quantity: t.quantity,
      timestamp_ms: t.timestamp_ms,
      fee: t.fee,
      strategy: t.strategy,
      meta: t.meta,
      signal_score: t.signal_score ?? t.entry_signal_score ?? null,
    });
  }
  return { trades, skipped };
}

/** Read the trade logs of the given modes under DATA_DIR; a missing file is an empty log. */
export function readTradeLogs(dataDir: string, modes: readonly TradeLogMode[] = TRADE_LOG_MODES): TradeLog {
  const out: TradeLog = { trades: [], skipped: [] };
  for (const mode of modes) {
    const path = tradeLogPath(dataDir, mode);
    if (!existsSync(path)) continue;
    const log = parseTradeLog(readFileSync(path, "utf8"), mode);
    out.trades.push(...log.trades);
    out.skipped.push(...log.skipped);
  }
  return out;
}
