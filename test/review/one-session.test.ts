import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { closedPositions, summarizeClosed } from "../../src/review/closed-positions.ts";
import { runHowl } from "../../src/review/howl.ts";
import { readAllJournalEntries, recordClosedPosition } from "../../src/review/journal.ts";
import { journalSummary } from "../../src/review/journal-text.ts";
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
      // One rating of a signal: the judge's is the journal's.
      expect(s?.signal_quality, e.instrument).toBe(e.signal_quality);
      expect(s?.was_accurate, e.instrument).toBe(e.signal_quality !== "poor");
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
    expect(report).toContain("| Closed Positions | 3: win rate 33.3% (1W / 2L)");
    expect(report).toContain("2 paired from the fills in the trade logs");
  });

  it("the journal, the judge, MCP judge_report and HOWL give one count, win rate, net PnL and mean ROE", () => {
    const dataDir = tempDataDir();
    recordSession(dataDir);
    const journal = readAllJournalEntries(dataDir);
    // What the journal's entries say, summed by hand from the entries themselves.
    const net = journal.reduce((sum, e) => sum + Number(e.pnl), 0);
    const meanRoe = journal.reduce((sum, e) => sum + e.roe_pct, 0) / journal.length;
    const wins = journal.filter((e) => Number(e.pnl) > 0).length;
    const fromJournal = summarizeClosed(closedPositions(journal, []));
    expect(fromJournal).toEqual({
      closed_positions: 3,
      wins,
      losses: 3 - wins,
      win_rate: Number(((wins / 3) * 100).toFixed(1)),
      net_pnl: Number(net.toFixed(2)),
      mean_roe_pct: Number(meanRoe.toFixed(2)),
    });
    const { report } = runJudge({ dataDir, nowMs: 1_000_000 });
    expect(report.closed).toEqual(fromJournal);
    const served = latestJudgeReport(dataDir);
    expect("closed" in served && served.closed).toEqual(fromJournal);
    const howl = runHowl({ dataDir, nowMs: 1_000_000, remember: false });
    expect(howl.closed).toEqual(fromJournal);
    const text = readFileSync(howl.latestPath!, "utf8");
    expect(text).toContain(`net PnL $${fromJournal.net_pnl.toFixed(2)}`);
    expect(text).toContain(`mean ROE ${fromJournal.mean_roe_pct.toFixed(2)}%`);
    // hl journal view's last line says the same.
    expect(journalSummary(journal)).toBe(
      `3 closed positions: win rate 33.3% (1W / 2L), net PnL $${fromJournal.net_pnl.toFixed(2)}, mean ROE ${fromJournal.mean_roe_pct.toFixed(2)}%`,
    );
  });
});
