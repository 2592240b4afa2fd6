import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeJsonAtomic } from "../store/atomic.ts";
import { closedPositions, summarizeClosed } from "./closed-positions.ts";
import { readAllJournalEntries } from "./journal.ts";
import { type ClosedSignal, type JudgeReport, judgeSignals, type PeakRecord } from "./judge-engine.ts";
import { appendMemoryEvent } from "./memory.ts";
import { recordPlaybookTrades } from "./playbook.ts";
import { freshReportPath, listReports } from "./report-files.ts";
import { readTradeLogs, TRADE_LOG_MODES, type TradeLogMode } from "./trade-log.ts";

function judgeDir(dataDir: string): string {
  return join(dataDir, "judge");
}

interface JudgeRunOptions {
  dataDir: string;
  nowMs?: number;
  sources?: readonly TradeLogMode[];
}

export interface JudgeRunResult {
  report: JudgeReport;
  /** Where the report was saved; null when there was nothing closed to judge (no file written). */
  path: string | null;
  /** Closed trades newly folded into the playbook by this run (0 when a re-run saw nothing new). */
  playbookAdded: number;
}

function peaksFromJournal(dataDir: string): PeakRecord[] {
  return readAllJournalEntries(dataDir)
    .filter((e) => e.peak_roe_pct !== null)
    .map((e) => ({
      instrument: e.instrument,
      source: e.entry_source,
      close_reason: e.close_reason,
      roe_pct: e.roe_pct,
      peak_roe_pct: e.peak_roe_pct!,
    }));
}

function summarise(report: JudgeReport): string {
  const rates = Object.entries(report.false_positive_rates)
    .map(([src, fp]) => `${src}=${fp.toFixed(0)}%`)
    .join(", ");
  return `Judge: ${report.findings.length} findings${rates ? `, FP rates: ${rates}` : ""}`;
}

/**
 * Judge every closed signal in the trade logs: save the report to `$DATA_DIR/judge/<UTC stamp>.json`,
 * remember a `judge_finding` event, and fold the signals into the playbook (each one once, ever).
 */
export function runJudge(opts: JudgeRunOptions): JudgeRunResult {
  const nowMs = opts.nowMs ?? Date.now();
  const sources = opts.sources ?? TRADE_LOG_MODES;
  const log = readTradeLogs(opts.dataDir, sources);
  const journal = sources.includes("wolf") ? readAllJournalEntries(opts.dataDir) : [];
  const signals: ClosedSignal[] = closedPositions(journal, log.trades);
  const report: JudgeReport = {
    ...judgeSignals(signals, peaksFromJournal(opts.dataDir), nowMs),
    closed: summarizeClosed(signals),
  };
  if (report.round_trips_evaluated === 0) return { report, path: null, playbookAdded: 0 };

  const path = freshReportPath(judgeDir(opts.dataDir), nowMs, ".json");
  writeJsonAtomic(path, report);
  appendMemoryEvent(opts.dataDir, {
    event_type: "judge_finding",
    timestamp_ms: nowMs,
    payload: {
      findings_count: report.findings.length,
      false_positive_rates: report.false_positive_rates,
      recommendations: report.config_recommendations.map((r) => r.summary),
      report: path,
    },
    summary: summarise(report),
  });
  const { added } = recordPlaybookTrades(
    opts.dataDir,
    signals.map((s) => ({
      id: s.id,
      instrument: s.instrument,
      source: s.source,
      pnl: s.pnl,
      roe_pct: s.roe_pct,
      holding_ms: s.holding_ms,
    })),
    nowMs,
  );
  return { report, path, playbookAdded: added };
}

/** The newest readable judge report, or `{status: "no_reports"}`; an unreadable file is passed over. */
export function latestJudgeReport(dataDir: string): JudgeReport | { status: "no_reports"; message: string } {
  const dir = judgeDir(dataDir);
  for (const file of listReports(dir, ".json")) {
    try {
      const parsed = JSON.parse(readFileSync(join(dir, file), "utf8")) as JudgeReport;
      if (typeof parsed.round_trips_evaluated === "number") return parsed;
    } catch {
      // a half-written or corrupt report: fall back to the previous one
    }
  }
  return {
    status: "no_reports",
    message: "No judge reports yet. They are written by the review every 240 WOLF ticks.",
  };
}
