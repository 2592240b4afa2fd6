import { appendFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { UserError } from "../../src/core/errors.ts";
import {
  appendJournalEntry,
  findJournalEntry,
  journalPath,
  readJournal,
  recordClosedPosition,
} from "../../src/review/journal.ts";
import { buildJournalEntry, type ClosedPosition, rateSignalQuality } from "../../src/review/journal-entry.ts";
import { readMemory } from "../../src/review/memory.ts";
import { tempDataDir } from "./helpers.ts";

const DAY = 86_400_000;
const MAR3 = Date.UTC(2026, 2, 3);

function position(over: Partial<ClosedPosition> = {}): ClosedPosition {
  return {
    instrument: "ETH-PERP",
    direction: "long",
    entry_price: "2500",
    exit_price: "2550",
    size: "0.4",
    pnl: "19.5",
    roe_pct: 6,
    entry_ts: MAR3,
    close_ts: MAR3 + 2 * 3_600_000,
    entry_source: "scanner",
    entry_signal_score: 215,
    close_reason: "dsl_close: phase 2 floor",
    ...over,
  };
}

describe("journal entries", () => {
  it("rates signal quality: good needs profit and a strong score, fair is profit, poor is no profit", () => {
    expect(rateSignalQuality("scanner", 200, "1")).toBe("good");
    expect(rateSignalQuality("scanner", 199, "1")).toBe("fair");
    expect(rateSignalQuality("movers_immediate", 100, "1")).toBe("good");
    expect(rateSignalQuality("movers_signal", 80, "1")).toBe("good");
    expect(rateSignalQuality("smart_money:SMART_MONEY", 99, "1")).toBe("fair");
    expect(rateSignalQuality("scanner", null, "1")).toBe("fair");
    expect(rateSignalQuality("scanner", 300, "0")).toBe("poor");
    expect(rateSignalQuality("scanner", 300, "-2")).toBe("poor");
  });

  it("builds a structured record with reasoning, close reason and quality", () => {
    const e = buildJournalEntry(position());
    expect(e).toMatchObject({
      entry_id: `ETH-PERP-${MAR3}`,
      entry_source: "scanner",
      close_reason: "dsl_close: phase 2 floor",
      signal_quality: "good",
      pnl: "19.5",
      roe_pct: 6,
      holding_ms: 2 * 3_600_000,
    });
    expect(e.entry_reasoning).toContain("scanner");
    expect(e.exit_reasoning).toContain("Trailing stop");
    expect(e.exit_reasoning).toContain("+6.0% ROE after 2.0h");
    expect(e.retrospective).toContain("locked in");
  });

  it("poor trades get advice in the retrospective", () => {
    const e = buildJournalEntry(
      position({
        pnl: "-5",
        roe_pct: -3,
        entry_source: "movers_immediate",
        close_reason: "hard_stop: ROE -3%",
      }),
    );
    expect(e.signal_quality).toBe("poor");
    expect(e.exit_reasoning).toContain("Hard stop");
    expect(e.retrospective).toContain("false positive");
  });

  it("reads newest close first, filters by UTC close date, limits (default 20)", () => {
    const dataDir = tempDataDir();
    for (let i = 0; i < 25; i++) {
      appendJournalEntry(
        dataDir,
        buildJournalEntry(position({ entry_ts: MAR3 + i * 1000, close_ts: MAR3 + (i % 2) * DAY + i * 1000 })),
      );
    }
    const all = readJournal({ dataDir });
    expect(all).toHaveLength(20);
    expect(all[0]!.close_ts).toBeGreaterThanOrEqual(all[1]!.close_ts);
    const mar4 = readJournal({ dataDir, date: "2026-03-04", limit: 100 });
    expect(mar4).toHaveLength(12);
    expect(mar4.every((e) => new Date(e.close_ts).toISOString().startsWith("2026-03-04"))).toBe(true);
    expect(readJournal({ dataDir, limit: 2 })).toHaveLength(2);
    expect(() => readJournal({ dataDir, date: "yesterday" })).toThrow(UserError);
  });

  it("skips a corrupt line and finds entries by id", () => {
    const dataDir = tempDataDir();
    appendJournalEntry(dataDir, buildJournalEntry(position()));
    appendFileSync(journalPath(dataDir), "nope\n");
    expect(readJournal({ dataDir })).toHaveLength(1);
    expect(findJournalEntry(dataDir, `ETH-PERP-${MAR3}`)?.instrument).toBe("ETH-PERP");
    expect(findJournalEntry(dataDir, "missing")).toBeNull();
  });

  it("recordClosedPosition remembers a notable trade (|PnL| > 10% of slot margin)", () => {
    const dataDir = tempDataDir();
    recordClosedPosition(dataDir, position({ pnl: "19.5" }), { marginPerSlot: 100 });
    recordClosedPosition(dataDir, position({ pnl: "5", entry_ts: MAR3 + 1 }), { marginPerSlot: 100 });
    recordClosedPosition(dataDir, position({ pnl: "50", entry_ts: MAR3 + 2 }));
    expect(readJournal({ dataDir })).toHaveLength(3);
    const notable = readMemory({ dataDir, event_type: "notable_trade" });
    expect(notable).toHaveLength(1);
    expect(notable[0]!.payload).toMatchObject({ pnl: 19.5, instrument: "ETH-PERP" });
  });
});
