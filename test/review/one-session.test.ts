import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runHowl } from "../../src/review/howl.ts";
import { readAllJournalEntries, recordClosedPosition } from "../../src/review/journal.ts";
import { latestJudgeReport, runJudge } from "../../src/review/judge.ts";
import { tempDataDir, trip, writeTrades } from "./helpers.ts";

/**
 * One recorded WOLF session: three slots closed at 10× leverage, each with its journal entry written as
 * WOLF writes it, and its fills in wolf/trades.jsonl (the third close's fill is missing there, as when
 * the exchange's own stop closed it). The journal, the judge and MCP judge_report must tell one story.
 */
function recordSession(dataDir: string): void {
  const positions = [
    { instrument: "ETH-PERP", entry: 3000, exit: 2984.31, qty: 2.3, roe: -5.23, score: 295.8, t: 1_000 },
    { instrument: "BTC-PERP", entry: 90_000, exit: 90_900, qty: 0.01, roe: 10, score: 180, t: 200_000 },
    { instrument: "SOL-PERP", entry: 200, exit: 196, qty: 5, roe: -20, score: 150, t: 400_000 },
  ];
  for (const [i, p] of positions.entries()) {
    const lines = trip({
      entry: p.entry,
      exit: p.exit,
      qty: p.qty,
      t: p.t,
      instrument: p.instrument,
      source: "scanner",
    });
    writeTrades(dataDir, i === 2 ? lines.slice(0, 1) : lines);
    recordClosedPosition(dataDir, {
      instrument: p.instrument,
      direction: "long",
      entry_price: String(p.entry),
      exit_price: String(p.exit),
      size: String(p.qty),
      pnl: String((p.exit - p.entry) * p.qty),
      roe_pct: p.roe,
      peak_roe_pct: Math.max(p.roe, 1),
      entry_ts: p.t,
      close_ts: p.t + 60_000,
      entry_source: "scanner",
      entry_signal_score: p.score,
      close_reason: p.roe < 0 ? "hard_stop" : "dsl_close",
    });
  }
}

describe("one recorded session, every review tool", () => {
  it("the judge and MCP judge_report count, score and give ROE as the journal does", () => {
    const dataDir = tempDataDir();
    recordSession(dataDir);
    const journal = readAllJournalEntries(dataDir);
    expect(journal).toHaveLength(3);
    const { report } = runJudge({ dataDir, nowMs: 1_000_000 });
    expect(report.round_trips_evaluated).toBe(journal.length);
    const byInstrument = new Map(report.signal_scores.map((s) => [s.instrument, s]));
    for (const e of journal) {
      const s = byInstrument.get(e.instrument);
      expect(s?.roe_pct, e.instrument).toBe(e.roe_pct);
      expect(s?.entry_score, e.instrument).toBe(e.entry_signal_score);
    }
    // MCP judge_report serves the saved report: the same figures.
    const served = latestJudgeReport(dataDir);
    expect("signal_scores" in served && served.signal_scores).toEqual(report.signal_scores);
  });

  it("HOWL counts the closed positions the journal has, and says how many paired from fills", () => {
    const dataDir = tempDataDir();
    recordSession(dataDir);
    const r = runHowl({ dataDir, nowMs: 1_000_000, remember: false });
    expect(r.closedPositions).toBe(readAllJournalEntries(dataDir).length);
    const report = readFileSync(r.latestPath!, "utf8");
    expect(report).toContain("| Closed Positions | 3 |");
    expect(report).toContain("2 paired from the fills in the trade logs");
  });
});
