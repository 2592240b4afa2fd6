import { usd } from "../core/money.ts";
import { closedPositions, summarizeClosed } from "./closed-positions.ts";
import type { JournalEntry } from "./journal-entry.ts";

/** One journal entry on one line, as `hl journal view` prints it. */
export function journalLine(e: JournalEntry): string {
  const closed = new Date(e.close_ts).toISOString().slice(0, 16).replace("T", " ");
  return `${closed}  ${e.instrument.padEnd(12)} ${e.direction.padEnd(5)} ${usd(e.pnl).padStart(11)} ${`${e.roe_pct}%`.padStart(8)}  ${e.signal_quality.padEnd(4)}  ${e.entry_source} → ${e.close_reason}  [${e.entry_id}]`;
}

/** One journal entry in full, as `hl journal entry` prints it. */
export function journalDetail(e: JournalEntry): string {
  const rows: [string, string][] = [
    ["Entry id", e.entry_id],
    ["Instrument", `${e.instrument} ${e.direction}`],
    ["Entry → exit", `${e.entry_price} → ${e.exit_price} (size ${e.size})`],
    ["PnL", `${usd(e.pnl)} (${e.roe_pct}% ROE${e.peak_roe_pct === null ? "" : `, peak ${e.peak_roe_pct}%`})`],
    ["Held", `${(e.holding_ms / 3_600_000).toFixed(1)}h`],
    ["Signal", `${e.entry_source}${e.entry_signal_score === null ? "" : ` (score ${e.entry_signal_score})`}`],
    ["Quality", e.signal_quality],
    ["Close reason", e.close_reason],
    ["Entry reasoning", e.entry_reasoning],
    ["Exit reasoning", e.exit_reasoning],
    ["Retrospective", e.retrospective],
  ];
  return `${rows.map(([k, v]) => `${k.padEnd(16)} ${v}`).join("\n")}\n`;
}

/** The entries' count, win rate, net PnL and mean ROE: the figures HOWL and the judge give for them. */
export function journalSummary(entries: readonly JournalEntry[]): string {
  const c = summarizeClosed(closedPositions(entries, []));
  return `${c.closed_positions} closed position${c.closed_positions === 1 ? "" : "s"}: win rate ${c.win_rate.toFixed(1)}% (${c.wins}W / ${c.losses}L), net PnL ${usd(c.net_pnl)}, mean ROE ${c.mean_roe_pct.toFixed(2)}%`;
}
