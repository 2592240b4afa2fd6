import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { appendJournalEntry } from "../../src/review/journal.ts";
import { buildJournalEntry } from "../../src/review/journal-entry.ts";
import { latestJudgeReport, runJudge } from "../../src/review/judge.ts";
import { closedSignals, judgeSignals, outcomeScore, signalSource } from "../../src/review/judge-engine.ts";
import { readMemory } from "../../src/review/memory.ts";
import { type Line, pair, tempDataDir, trip, writeTrades } from "./helpers.ts";

const H = 3_600_000;

function signalsOf(lines: Line[]) {
  const { roundTrips, open } = pair(lines);
  return closedSignals(roundTrips, open);
}

/** n winners then m losers from one source, each a separate position. */
function outcomes(
  source: string,
  wins: number,
  losses: number,
  opts: { instrument?: string; t0?: number } = {},
): Line[] {
  const t0 = opts.t0 ?? 0;
  return [
    ...Array.from({ length: wins }, (_, i) =>
      trip({ entry: 100, exit: 110, source, instrument: opts.instrument, t: t0 + i * H }),
    ),
    ...Array.from({ length: losses }, (_, i) =>
      trip({ entry: 100, exit: 95, source, instrument: opts.instrument, t: t0 + (wins + i) * H }),
    ),
  ].flat();
}

describe("judge engine", () => {
  it("empty input evaluates nothing", () => {
    expect(judgeSignals([], [], 0).round_trips_evaluated).toBe(0);
  });

  it("attributes signals from entry meta, falling back to the strategy", () => {
    expect(signalSource("entry:scanner", "wolf")).toBe("scanner");
    expect(signalSource("entry:smart_money:HIGH_CONVICTION", "wolf")).toBe("smart_money:HIGH_CONVICTION");
    expect(signalSource("", "engine_mm")).toBe("engine_mm");
    expect(signalSource("", "")).toBe("unknown");
  });

  it("three winning longs: three accurate scores", () => {
    const report = judgeSignals(signalsOf(outcomes("scanner", 3, 0)), [], 0);
    expect(report.signal_scores).toHaveLength(3);
    expect(report.signal_scores.every((s) => s.was_accurate)).toBe(true);
    expect(report.signal_scores[0]!.roe_pct).toBe(10);
  });

  it("outcome score: ROE 8 → 76, ROE −4 → 0, and the documented pieces", () => {
    expect(outcomeScore(8)).toBe(76);
    expect(outcomeScore(-4)).toBe(0);
    expect(outcomeScore(2)).toBe(48);
    expect(outcomeScore(-1)).toBe(20);
    expect(outcomeScore(30)).toBe(100);
  });

  it("false-positive rates: 2W/2L → 50 (elevated), 1W/3L → 75 with a recommendation", () => {
    const report = judgeSignals(
      signalsOf([
        ...outcomes("scanner", 2, 2),
        ...outcomes("movers_immediate", 1, 3, { instrument: "SOL-PERP" }),
      ]),
      [],
      0,
    );
    expect(report.false_positive_rates).toEqual({ movers_immediate: 75, scanner: 50 });
    expect(report.findings.find((f) => f.source === "scanner")!.detail).toContain("(elevated)");
    expect(report.findings.find((f) => f.source === "movers_immediate")!.recommendation).toContain("Tighten");
    expect(report.config_recommendations.map((r) => r.param)).toEqual(["movers_immediate_auto_entry"]);
  });

  it("a break-even signal is a false positive; a source needs 2 signals for a rate", () => {
    const report = judgeSignals(
      signalsOf([
        ...trip({ entry: 100, exit: 100, source: "movers_signal" }),
        ...outcomes("scanner", 1, 0, { t0: 10 * H }),
      ]),
      [],
      0,
    );
    expect(report.false_positive_rates).toEqual({});
    const two = judgeSignals(
      signalsOf([
        ...trip({ entry: 100, exit: 100, source: "movers_signal" }),
        ...trip({ entry: 100, exit: 100, source: "movers_signal", t: 5 * H }),
      ]),
      [],
      0,
    );
    expect(two.false_positive_rates.movers_signal).toBe(100);
    expect(two.config_recommendations[0]).toMatchObject({
      param: "movers_confidence_threshold",
      suggested_value: 85,
    });
  });

  it("accuracy by instrument and playbook stats per instrument:source", () => {
    const report = judgeSignals(signalsOf(outcomes("scanner", 1, 1)), [], 0);
    expect(report.playbook_stats["ETH-PERP:scanner"]).toMatchObject({
      count: 2,
      wins: 1,
      win_rate: 50,
      total_pnl: 5,
    });
    expect(report.playbook_stats["ETH-PERP:scanner"]!.avg_holding_h).toBeCloseTo(60_000 / H, 2);
    expect(report.accuracy_by_instrument["ETH-PERP"]).toEqual({ count: 2, accurate: 1, accuracy_pct: 50 });
  });

  it("only judges fully closed positions; a partial exit waits", () => {
    const signals = signalsOf([
      { side: "buy", price: 100, quantity: 2, timestamp_ms: 1, meta: "entry:scanner" },
      { side: "sell", price: 110, quantity: 1, timestamp_ms: 2 },
    ]);
    expect(signals).toEqual([]);
    const closed = signalsOf([
      { side: "buy", price: 100, quantity: 2, timestamp_ms: 1, meta: "entry:scanner" },
      { side: "sell", price: 110, quantity: 1, timestamp_ms: 2 },
      { side: "sell", price: 120, quantity: 1, timestamp_ms: 3, meta: "dsl_close: floor" },
    ]);
    expect(closed).toHaveLength(1);
    expect(closed[0]!.pnl.toString()).toBe("30");
    expect(closed[0]!.roe_pct.toString()).toBe("15");
    expect(closed[0]!.close_reason).toBe("dsl_close: floor");
  });

  it("judges PnL after fees: a gross winner eaten by fees is a false positive", () => {
    const report = judgeSignals(
      signalsOf([
        ...trip({ entry: 100, exit: 101, fee: 1, source: "scanner" }),
        ...trip({ entry: 100, exit: 101, fee: 1, source: "scanner", t: 5 * H }),
      ]),
      [],
      0,
    );
    expect(report.false_positive_rates.scanner).toBe(100);
  });

  it("DSL efficiency: a dsl_close that kept 4 of a 10% peak is a finding scored 40", () => {
    const report = judgeSignals(
      [],
      [
        {
          instrument: "ETH-PERP",
          source: "scanner",
          close_reason: "dsl_close: tier 2",
          roe_pct: 4,
          peak_roe_pct: 10,
        },
      ],
      0,
    );
    expect(report.findings).toEqual([expect.objectContaining({ finding_type: "dsl_efficiency", score: 40 })]);
    expect(
      judgeSignals(
        [],
        [{ instrument: "E", source: "s", close_reason: "hard_stop", roe_pct: 1, peak_roe_pct: 10 }],
        0,
      ).findings,
    ).toEqual([]);
  });

  it("direction bias: ≥ 3 losing longs while shorts win; three losing longs alone do not crash", () => {
    const lines = [
      ...Array.from({ length: 3 }, (_, i) =>
        trip({ entry: 100, exit: 95, source: "scanner", t: i * H }),
      ).flat(),
      ...trip({ entry: 100, exit: 90, direction: "short", source: "scanner", t: 10 * H }),
    ];
    const report = judgeSignals(signalsOf(lines), [], 0);
    expect(report.config_recommendations.find((r) => r.param === "direction_bias")).toMatchObject({
      suggested_value: "short",
      summary: "Reduce long exposure",
    });
    const alone = judgeSignals(signalsOf(lines.slice(0, 6)), [], 0);
    expect(alone.config_recommendations.find((r) => r.param === "direction_bias")).toBeUndefined();
  });
});

describe("runJudge / latestJudgeReport", () => {
  it("no_reports until a run judged something", () => {
    const dataDir = tempDataDir();
    expect(latestJudgeReport(dataDir)).toMatchObject({ status: "no_reports" });
    writeTrades(dataDir, [{ side: "buy", price: 1, quantity: 1, timestamp_ms: 1, meta: "entry:scanner" }]);
    expect(runJudge({ dataDir, nowMs: 5 }).path).toBeNull();
    expect(latestJudgeReport(dataDir)).toMatchObject({ status: "no_reports" });
  });

  it("saves a JSON report with its signal scores, records a judge_finding event, and returns the newest", () => {
    const dataDir = tempDataDir();
    writeTrades(dataDir, outcomes("scanner", 2, 2));
    const now = Date.UTC(2026, 2, 3, 4, 0, 0);
    const run = runJudge({ dataDir, nowMs: now });
    expect(run.path).toBe(join(dataDir, "judge", "2026-03-03-040000.json"));
    const saved = JSON.parse(readFileSync(run.path!, "utf8"));
    expect(saved.signal_scores).toHaveLength(4);
    expect(latestJudgeReport(dataDir)).toEqual(saved);
    const [event] = readMemory({ dataDir, event_type: "judge_finding" });
    expect(event!.summary).toBe("Judge: 1 findings, FP rates: scanner=50%");
  });

  it("passes over a corrupt newest report to the previous one", () => {
    const dataDir = tempDataDir();
    writeTrades(dataDir, outcomes("scanner", 1, 1));
    runJudge({ dataDir, nowMs: Date.UTC(2026, 2, 3) });
    mkdirSync(join(dataDir, "judge"), { recursive: true });
    writeFileSync(join(dataDir, "judge", "2026-03-04-000000.json"), "{half");
    expect(latestJudgeReport(dataDir)).toMatchObject({ round_trips_evaluated: 2 });
  });

  it("uses journal peaks for DSL efficiency", () => {
    const dataDir = tempDataDir();
    writeTrades(dataDir, outcomes("scanner", 1, 0));
    appendJournalEntry(
      dataDir,
      buildJournalEntry({
        instrument: "ETH-PERP",
        direction: "long",
        entry_price: "100",
        exit_price: "104",
        size: "1",
        pnl: "4",
        roe_pct: 4,
        peak_roe_pct: 10,
        entry_ts: 0,
        close_ts: H,
        entry_source: "scanner",
        close_reason: "dsl_close: tier 1",
      }),
    );
    expect(runJudge({ dataDir, nowMs: 10 * H }).report.findings.map((f) => f.finding_type)).toEqual([
      "dsl_efficiency",
    ]);
  });

  it("the playbook counts each trade once however often the judge runs (predecessor double-counted)", () => {
    const dataDir = tempDataDir();
    writeTrades(dataDir, outcomes("scanner", 1, 1));
    expect(runJudge({ dataDir, nowMs: 1 * H }).playbookAdded).toBe(2);
    expect(runJudge({ dataDir, nowMs: 2 * H }).playbookAdded).toBe(0);
    expect(runJudge({ dataDir, nowMs: 3 * H }).playbookAdded).toBe(0);
    const entry = readMemory({ dataDir, query_type: "playbook" })["ETH-PERP:scanner"]!;
    expect(entry).toMatchObject({ trade_count: 2, win_count: 1, win_rate: 50, total_pnl: "5" });
    writeTrades(dataDir, outcomes("scanner", 1, 0, { t0: 100 * H }));
    expect(runJudge({ dataDir, nowMs: 200 * H }).playbookAdded).toBe(1);
    expect(readMemory({ dataDir, query_type: "playbook" })["ETH-PERP:scanner"]).toMatchObject({
      trade_count: 3,
      win_count: 2,
      total_pnl: "15",
    });
  });
});
