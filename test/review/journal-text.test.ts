import { describe, expect, it } from "vitest";
import type { JournalEntry } from "../../src/review/journal-entry.ts";
import { journalDetail, journalLine } from "../../src/review/journal-text.ts";

const entry = {
  entry_id: "e1",
  instrument: "ETH-PERP",
  direction: "long",
  entry_price: "3000",
  exit_price: "2950",
  size: "2.3",
  pnl: "-115.79741103",
  roe_pct: -5.23,
  peak_roe_pct: null,
  holding_ms: 3_600_000,
  entry_source: "scanner",
  entry_signal_score: 295.8,
  signal_quality: "poor",
  close_reason: "hard_stop",
  entry_reasoning: "",
  exit_reasoning: "",
  retrospective: "",
  close_ts: Date.UTC(2026, 0, 1, 12),
} as unknown as JournalEntry;

describe("journal text", () => {
  it("prints PnL as money, to the cent", () => {
    expect(journalLine(entry)).toContain("$-115.80");
    expect(journalLine(entry)).not.toContain("115.797");
    expect(journalDetail(entry)).toContain("$-115.80 (-5.23% ROE)");
    expect(journalLine({ ...entry, pnl: "3.4" })).toContain("$+3.40");
  });
});

describe("journal exit reasoning", () => {
  it("gives the ROE the close filled at and, when the close reason names one, the ROE that triggered it", async () => {
    const { buildJournalEntry } = await import("../../src/review/journal-entry.ts");
    const e = buildJournalEntry({
      instrument: "ETH-PERP",
      direction: "long",
      entry_price: "3000",
      exit_price: "2981",
      size: "1",
      pnl: "-19",
      roe_pct: -6.3,
      entry_ts: 0,
      close_ts: 3_600_000,
      entry_source: "scanner",
      close_reason: "hard_stop: ROE -5.7%",
    });
    expect(e.exit_reasoning).toContain("-6.3% ROE");
    expect(e.exit_reasoning).toContain("triggered at -5.7% ROE");
  });
});
