import { z } from "zod";
import { type DecLike, dec, num, wire } from "../core/decimal.ts";
import { exitType } from "./howl-metrics.ts";

const SIGNAL_QUALITIES = ["good", "fair", "poor"] as const;
export type SignalQuality = (typeof SIGNAL_QUALITIES)[number];

/** One closed position, as written to `$DATA_DIR/journal/entries.jsonl`. Money fields are decimal strings. */
export const journalEntrySchema = z.object({
  entry_id: z.string(),
  instrument: z.string(),
  direction: z.enum(["long", "short"]),
  entry_price: z.string(),
  exit_price: z.string(),
  size: z.string(),
  pnl: z.string(),
  roe_pct: z.number(),
  peak_roe_pct: z.number().nullable(),
  holding_ms: z.number(),
  entry_source: z.string(),
  entry_signal_score: z.number().nullable(),
  close_reason: z.string(),
  entry_ts: z.number().int(),
  close_ts: z.number().int(),
  entry_reasoning: z.string(),
  exit_reasoning: z.string(),
  signal_quality: z.enum(SIGNAL_QUALITIES),
  retrospective: z.string(),
});
export type JournalEntry = z.infer<typeof journalEntrySchema>;

/** What the trading loop knows when a position closes. */
export interface ClosedPosition {
  instrument: string;
  direction: "long" | "short";
  entry_price: DecLike;
  exit_price: DecLike;
  size: DecLike;
  /** Realised PnL net of fees. */
  pnl: DecLike;
  /** Return on margin at close, percent. */
  roe_pct: number;
  /** Best ROE seen while open, percent (lets the judge measure trailing-stop efficiency). */
  peak_roe_pct?: number | null;
  entry_ts: number;
  close_ts: number;
  /** e.g. "scanner", "movers_immediate", "smart_money:HIGH_CONVICTION", or a strategy id. */
  entry_source: string;
  entry_signal_score?: number | null;
  /** e.g. "dsl_close: phase 2 floor", "hard_stop: ROE -5.2%", "conviction_collapse". */
  close_reason: string;
  /** What the trader's notes said about the instrument (appended to the entry reasoning). */
  notes?: string | null;
}

/** Signal score at or above which a profitable trade's signal counts as "good", per source. */
const GOOD_SIGNAL_SCORE: Record<string, number> = {
  scanner: 200,
  movers_immediate: 100,
  movers_signal: 80,
};
const DEFAULT_GOOD_SIGNAL_SCORE = 100;

export function rateSignalQuality(source: string, score: number | null, pnl: DecLike): SignalQuality {
  if (!dec(pnl).gt(0)) return "poor";
  const good = GOOD_SIGNAL_SCORE[source] ?? DEFAULT_GOOD_SIGNAL_SCORE;
  return score !== null && score >= good ? "good" : "fair";
}

function signed(value: number, dp: number): string {
  return `${value >= 0 ? "+" : ""}${value.toFixed(dp)}`;
}

function entryReasoning(p: ClosedPosition, score: number | null): string {
  const side = p.direction === "long" ? "Long" : "Short";
  const scoreText = score === null ? "" : ` (score ${score})`;
  switch (p.entry_source) {
    case "movers_immediate":
      return `${side} ${p.instrument} on an immediate-mover signal: open interest and volume surged together${scoreText}.`;
    case "movers_signal":
      return `${side} ${p.instrument} on an emerging-mover signal${scoreText}.`;
    case "scanner":
      return `${side} ${p.instrument} on a scanner opportunity above the score threshold${score === null ? "" : ` (score ${score}/400)`}.`;
    default:
      return `${side} ${p.instrument} via ${p.entry_source || "an unnamed source"}${scoreText}.`;
  }
}

/**
 * The close filled at `roe_pct`; an exit rule names the ROE it fired at ("hard_stop: ROE -5.7%"), which
 * slippage makes differ. Both are said, each for what it is, so the two figures never seem to disagree.
 */
function filledAt(p: ClosedPosition, hours: number): string {
  const filled = `${signed(p.roe_pct, 1)}% ROE after ${hours.toFixed(1)}h`;
  const trigger = /ROE\s*([-+]?\d+(?:\.\d+)?)\s*%/.exec(p.close_reason)?.[1];
  if (trigger === undefined || Number(trigger).toFixed(1) === Number(p.roe_pct).toFixed(1)) return filled;
  return `${filled} (triggered at ${signed(Number(trigger), 1)}% ROE)`;
}

function exitReasoning(p: ClosedPosition, hours: number): string {
  const roe = filledAt(p, hours);
  const type = exitType(p.close_reason);
  if (type === "dsl_close") return `Trailing stop closed the position at ${roe}.`;
  if (type === "conviction_collapse") return `Closed because the entry thesis lost conviction, at ${roe}.`;
  if (type.startsWith("stagnation")) return `Closed for going nowhere, at ${roe}.`;
  if (type === "daily_loss_limit") return `Closed by the daily loss limit, at ${roe}.`;
  if (type.includes("hard_stop")) return `Hard stop hit at ${roe}.`;
  return `Closed (${p.close_reason || "no reason given"}) at ${roe}.`;
}

function retrospective(p: ClosedPosition, quality: SignalQuality): string {
  const type = exitType(p.close_reason);
  const notes: string[] = [];
  if (quality === "poor") {
    if (p.entry_source === "movers_immediate")
      notes.push("Possible false positive: check whether the surge was already fading.");
    else if (p.entry_source === "scanner")
      notes.push("Check whether BTC macro turned against the scanner setup.");
    else notes.push(`Review what the ${p.entry_source || "entry"} signal missed.`);
  }
  if (type === "conviction_collapse" && p.roe_pct < -2)
    notes.push("Conviction collapsed late; an earlier exit would have cut the loss.");
  if (type === "dsl_close" && p.roe_pct > 5) notes.push("The trailing stop locked in a solid gain.");
  if (type.startsWith("stagnation") && dec(p.pnl).gt(0)) notes.push("Stagnation exit still banked a profit.");
  if (p.peak_roe_pct != null && p.peak_roe_pct > 0 && p.roe_pct < p.peak_roe_pct / 2) {
    notes.push(`Gave back more than half of the ${signed(p.peak_roe_pct, 1)}% peak.`);
  }
  if (notes.length === 0) {
    notes.push(dec(p.pnl).gt(0) ? "Trade played out as planned." : "Small loss within the expected range.");
  }
  return notes.join(" ");
}

/** Pure: a closed position → its journal entry (id, reasoning, quality rating, retrospective). */
export function buildJournalEntry(p: ClosedPosition): JournalEntry {
  const score = p.entry_signal_score ?? null;
  const quality = rateSignalQuality(p.entry_source, score, p.pnl);
  const holding = p.close_ts - p.entry_ts;
  return {
    entry_id: `${p.instrument}-${p.entry_ts}`,
    instrument: p.instrument,
    direction: p.direction,
    entry_price: wire(p.entry_price),
    exit_price: wire(p.exit_price),
    size: wire(p.size),
    pnl: wire(dec(p.pnl).toDecimalPlaces(8)),
    roe_pct: num(dec(p.roe_pct), 2),
    peak_roe_pct: p.peak_roe_pct == null ? null : num(dec(p.peak_roe_pct), 2),
    holding_ms: holding,
    entry_source: p.entry_source,
    entry_signal_score: score,
    close_reason: p.close_reason,
    entry_ts: p.entry_ts,
    close_ts: p.close_ts,
    entry_reasoning: p.notes ? `${entryReasoning(p, score)} ${p.notes}` : entryReasoning(p, score),
    exit_reasoning: exitReasoning(p, holding / 3_600_000),
    signal_quality: quality,
    retrospective: retrospective(p, quality),
  };
}
