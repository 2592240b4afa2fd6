import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../store/atomic.ts";
import { type ClosedSummary, closedPositions, summarizeClosed } from "./closed-positions.ts";
import { computeHowlMetrics, type HowlMetrics } from "./howl-metrics.ts";
import { howlRecommendations, type Recommendation } from "./howl-recommend.ts";
import { distillHowl, type HowlReportSummary, parseReportSummary, renderHowlReport } from "./howl-report.ts";
import { readAllJournalEntries } from "./journal.ts";
import { appendMemoryEvent } from "./memory.ts";
import { freshReportPath, listReports } from "./report-files.ts";
import { pairRoundTrips, type RoundTrip } from "./round-trips.ts";
import { humanUtc, parseUtcDate, utcDate } from "./time.ts";
import { readTradeLogs, TRADE_LOG_MODES, type TradeLogMode } from "./trade-log.ts";
import { writeVaultHowlReport } from "./vault-notes.ts";

const LATEST_REPORT = "report-latest.md";

function howlDir(dataDir: string): string {
  return join(dataDir, "howl");
}

interface HowlRunOptions {
  dataDir: string;
  /** YYYY-MM-DD (UTC): only round trips closed, and fills made, on or after that day. */
  since?: string | null;
  nowMs?: number;
  sources?: readonly TradeLogMode[];
  /** Record a `howl_review` memory event (default true). */
  remember?: boolean;
  /** A notes vault to copy the report into (see `configuredVault`); none when absent or null. */
  vault?: string | null;
}

export interface HowlRunResult {
  /** Path of the timestamped report, or null when there was nothing to review. */
  reportPath: string | null;
  latestPath: string | null;
  metrics: HowlMetrics;
  recommendations: Recommendation[];
  distill: string;
  skippedLines: number;
  /** Closed positions in the window, counted as every review tool counts them (src/review/closed-positions.ts). */
  closedPositions: number;
  /** Their count, win rate, net PnL and mean ROE, as the journal and the judge give them. */
  closed: ClosedSummary;
  /** The round trips reviewed (for callers that review further, e.g. auto-tuning windows). */
  roundTrips: RoundTrip[];
  /** The report's copy in the notes vault, when one was written. */
  vaultPath: string | null;
}

/**
 * Review the trade logs: pair fills into round trips over the whole history (so a `since` cut never
 * orphans an exit), keep those closed inside the window, compute metrics and rules, write the
 * timestamped report and `report-latest.md`, and remember the review.
 */
export function runHowl(opts: HowlRunOptions): HowlRunResult {
  const nowMs = opts.nowMs ?? Date.now();
  const sources = opts.sources ?? TRADE_LOG_MODES;
  const sinceMs = opts.since ? parseUtcDate(opts.since) : Number.NEGATIVE_INFINITY;
  const log = readTradeLogs(opts.dataDir, sources);
  const { roundTrips, open } = pairRoundTrips(log.trades);
  const trades = log.trades.filter((t) => t.timestamp_ms >= sinceMs);
  const trips = roundTrips.filter((t) => t.exit_ts >= sinceMs);
  const openLots = open.filter((l) => l.trade.timestamp_ms >= sinceMs);
  const metrics = computeHowlMetrics(trades, trips, openLots);
  const journal = sources.includes("wolf") ? readAllJournalEntries(opts.dataDir) : [];
  const summary = summarizeClosed(closedPositions(journal, log.trades).filter((p) => p.closed_ts >= sinceMs));
  const closed = summary.closed_positions;
  const recommendations = howlRecommendations(metrics);
  const distill = distillHowl(metrics, recommendations);
  const base = {
    metrics,
    recommendations,
    skippedLines: log.skipped.length,
    closedPositions: closed,
    closed: summary,
    roundTrips: trips,
    vaultPath: null,
  };
  if (trades.length === 0 && trips.length === 0) {
    return {
      ...base,
      reportPath: null,
      latestPath: null,
      distill: "No trades found. Run some trades first.",
    };
  }

  const markdown = renderHowlReport({
    metrics,
    recommendations,
    generatedAt: humanUtc(nowMs),
    since: opts.since ?? null,
    sources,
    skippedLines: log.skipped.length,
    closed: summary,
  });
  const dir = howlDir(opts.dataDir);
  const reportPath = freshReportPath(dir, nowMs, ".md");
  writeFileAtomic(reportPath, markdown);
  const latestPath = join(dir, LATEST_REPORT);
  writeFileAtomic(latestPath, markdown);
  const vaultCopy = opts.vault ? writeVaultHowlReport(opts.vault, utcDate(nowMs), metrics, markdown) : null;

  if (opts.remember ?? true) {
    appendMemoryEvent(opts.dataDir, {
      event_type: "howl_review",
      timestamp_ms: nowMs,
      payload: {
        round_trips: metrics.total_round_trips,
        win_rate: metrics.win_rate,
        net_pnl: metrics.net_pnl,
        fdr: metrics.fdr,
        report: reportPath,
      },
      summary: distill.split("\n")[0]!,
    });
  }
  return { ...base, reportPath, latestPath, distill, vaultPath: vaultCopy };
}

/** The newest report's markdown, or null when none was written yet. */
export function readLatestHowlReport(dataDir: string): string | null {
  const path = join(howlDir(dataDir), LATEST_REPORT);
  return existsSync(path) ? readFileSync(path, "utf8") : null;
}

interface HowlHistoryRow extends HowlReportSummary {
  file: string;
}

/** Past reports, newest first, with the summary each one carries. */
export function howlHistory(dataDir: string, limit = 10): HowlHistoryRow[] {
  const dir = howlDir(dataDir);
  const rows: HowlHistoryRow[] = [];
  for (const file of listReports(dir, ".md", [LATEST_REPORT])) {
    if (rows.length >= limit) break;
    const summary = parseReportSummary(readFileSync(join(dir, file), "utf8"));
    if (summary) rows.push({ file, ...summary });
  }
  return rows;
}
