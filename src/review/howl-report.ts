import { D } from "../core/decimal.ts";
import type { ClosedSummary } from "./closed-positions.ts";
import { HOLDING_BUCKETS, type HowlMetrics } from "./howl-metrics.ts";
import { formatUsd, HOWL_THRESHOLDS, type Recommendation } from "./howl-recommend.ts";

interface HowlReportInput {
  metrics: HowlMetrics;
  recommendations: readonly Recommendation[];
  /** e.g. "2026-03-03 14:05 UTC" */
  generatedAt: string;
  since: string | null;
  sources: readonly string[];
  skippedLines: number;
  /** Closed positions, as the journal and the judge count them (may exceed the round trips paired from fills). */
  closed?: ClosedSummary;
}

/** The summary every report carries in a trailing HTML comment, so `howl history` never scrapes prose. */
export interface HowlReportSummary {
  generated_at: string;
  round_trips: number;
  win_rate: number;
  net_pnl: number;
  fdr: number | null;
}

const SUMMARY_MARK = "howl-summary";

function fees(value: number): string {
  return `$${new D(value).toFixed(2)}`;
}

function fixed(value: number, dp: number): string {
  return new D(value).toFixed(dp);
}

function factor(pf: number | null, winningSide: number): string {
  if (pf !== null) return fixed(pf, 2);
  return winningSide > 0 ? "∞" : "n/a";
}

/** Human holding time: 45s, 12m, 3.5h, 2.1d. */
function humanDuration(ms: number): string {
  const s = ms / 1000;
  if (s < 60) return `${Math.round(s)}s`;
  if (s < 3600) return `${Math.round(s / 60)}m`;
  if (s < 86_400) return `${fixed(s / 3600, 1)}h`;
  return `${fixed(s / 86_400, 1)}d`;
}

function groupTable(title: string, column: string, groups: HowlMetrics["strategy_stats"]): string[] {
  const names = Object.keys(groups);
  if (names.length === 0) return [];
  const lines = [
    `## ${title}`,
    "",
    `| ${column} | Round Trips | Win Rate | Net PnL | Fees |`,
    "|---|---|---|---|---|",
  ];
  for (const name of names) {
    const g = groups[name]!;
    lines.push(
      `| ${name} | ${g.count} | ${fixed(g.win_rate, 0)}% | ${formatUsd(g.net_pnl)} | ${fees(g.total_fees)} |`,
    );
  }
  lines.push("");
  return lines;
}

/** Render the markdown report. Pure. */
export function renderHowlReport(input: HowlReportInput): string {
  const m = input.metrics;
  const T = HOWL_THRESHOLDS;
  const lines: string[] = [`# HOWL Report — ${input.generatedAt}`, ""];
  const scope = [
    `Sources: ${input.sources.join(", ")}`,
    input.since ? `since ${input.since} (UTC)` : "all history",
  ];
  lines.push(`_${scope.join(" · ")}_`, "");
  if (input.skippedLines > 0) {
    lines.push(`> ${input.skippedLines} malformed line(s) in trades.jsonl were skipped.`, "");
  }

  lines.push("## Core Stats", "", "| Metric | Value |", "|---|---|");
  lines.push(`| Trades | ${m.total_trades} |`);
  const closed = input.closed;
  if (closed !== undefined && closed.closed_positions > 0) {
    // The figures the journal and the judge give, from the same closed positions.
    lines.push(
      `| Closed Positions | ${closed.closed_positions}: win rate ${fixed(closed.win_rate, 1)}% (${closed.wins}W / ${closed.losses}L), net PnL ${formatUsd(closed.net_pnl)}, mean ROE ${fixed(closed.mean_roe_pct, 2)}% (as the journal and the judge give them) |`,
    );
  }
  if (closed !== undefined && closed.closed_positions !== m.total_round_trips) {
    // The journal records every close; a close whose fill is missing from the trade logs (an
    // exchange-side stop, a lost line) cannot be paired, so the fee figures below cover fewer trips.
    lines.push(
      `| Round Trips | ${m.total_round_trips} paired from the fills in the trade logs (the figures below) |`,
    );
  } else lines.push(`| Round Trips | ${m.total_round_trips} |`);
  lines.push(
    `| Win Rate | ${fixed(m.win_rate, 1)}% (${m.win_count}W / ${m.loss_count}L${m.breakeven_count ? ` / ${m.breakeven_count}BE` : ""}) |`,
  );
  lines.push(`| Gross PnL | ${formatUsd(m.gross_pnl)} |`);
  lines.push(`| Fees | ${fees(m.total_fees)} |`);
  lines.push(`| **Net PnL** | **${formatUsd(m.net_pnl)}** |`);
  lines.push(`| Gross PF | ${factor(m.gross_profit_factor, m.gross_wins)} |`);
  lines.push(`| Net PF | ${factor(m.net_profit_factor, m.win_count)} |`);
  lines.push("");

  lines.push("## Fee Analysis", "");
  let fdrLine = `- FDR (Fee Drag Ratio): ${m.fdr === null ? "n/a (no gross wins)" : `${fixed(m.fdr, 1)}%`}`;
  if (m.fdr !== null && m.fdr > T.fdrCriticalPct) fdrLine += " **CRITICAL**";
  else if (m.fdr !== null && m.fdr > T.fdrWarningPct) fdrLine += " **WARNING**";
  lines.push(fdrLine, `- Total fees (closed): ${fees(m.total_fees)}`);
  if (m.total_round_trips > 0) {
    lines.push(`- Avg fee per round trip: ${fees(new D(m.total_fees).div(m.total_round_trips).toNumber())}`);
  }
  if (m.open_lots > 0)
    lines.push(`- Fees on open positions: ${fees(m.open_fees)} (${m.open_lots} open lot(s))`);
  if (m.total_round_trips >= T.minGroupTrips && m.total_fees > Math.abs(m.gross_pnl)) {
    lines.push("- **Fees exceed gross PnL — net negative before any edge**");
  }
  lines.push("");

  lines.push("## Direction Analysis", "", "| Direction | Count | Win Rate | Net PnL |", "|---|---|---|---|");
  lines.push(`| Long | ${m.long.count} | ${fixed(m.long.win_rate, 0)}% | ${formatUsd(m.long.net_pnl)} |`);
  lines.push(`| Short | ${m.short.count} | ${fixed(m.short.win_rate, 0)}% | ${formatUsd(m.short.net_pnl)} |`);
  lines.push("");

  if (Object.keys(m.holding_buckets).length > 0) {
    lines.push("## Holding Periods", "", `- Average: ${humanDuration(m.avg_holding_ms)}`);
    for (const b of HOLDING_BUCKETS) {
      const n = m.holding_buckets[b.label];
      if (n) lines.push(`- ${b.label}: ${n} round trips`);
    }
    lines.push("");
  }

  lines.push(
    "## Streaks",
    "",
    `- Max consecutive wins: ${m.max_consecutive_wins}`,
    `- Max consecutive losses: ${m.max_consecutive_losses}`,
    "",
  );

  lines.push("## Monster Trade Dependency", "");
  lines.push(
    `- Best trade: ${formatUsd(m.best_trade_pnl)}`,
    `- Worst trade: ${formatUsd(m.worst_trade_pnl)}`,
  );
  if (m.monster_dependency_pct === null) {
    lines.push("- Dependency: n/a (net PnL not positive)");
  } else {
    const high = m.monster_dependency_pct > T.monsterDependencyPct ? " **HIGH**" : "";
    lines.push(`- Dependency: ${fixed(m.monster_dependency_pct, 0)}%${high}`);
  }
  lines.push("");

  lines.push(...groupTable("Instrument Breakdown", "Instrument", m.instrument_stats));
  lines.push(...groupTable("Strategy Breakdown", "Strategy", m.strategy_stats));

  const exits = Object.entries(m.exit_type_counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (exits.length > 0) {
    lines.push("## Exit Types", "");
    for (const [type, n] of exits) lines.push(`- ${type}: ${n}`);
    lines.push("");
  }

  lines.push("## Recommendations", "");
  if (input.recommendations.length === 0) lines.push("- No data to generate recommendations.");
  for (const r of input.recommendations) lines.push(`- ${r.message}`);
  lines.push("");

  const summary: HowlReportSummary = {
    generated_at: input.generatedAt,
    round_trips: m.total_round_trips,
    win_rate: m.win_rate,
    net_pnl: m.net_pnl,
    fdr: m.fdr,
  };
  lines.push(`<!-- ${SUMMARY_MARK} ${JSON.stringify(summary)} -->`);
  return `${lines.join("\n")}\n`;
}

/** Read back the summary a report carries; null for a file that is not one of ours. */
export function parseReportSummary(markdown: string): HowlReportSummary | null {
  const match = markdown.match(new RegExp(`<!-- ${SUMMARY_MARK} (\\{.*\\}) -->`));
  if (!match?.[1]) return null;
  try {
    return JSON.parse(match[1]) as HowlReportSummary;
  } catch {
    return null;
  }
}

/** Three or four lines for terminals, logs and memory events. */
export function distillHowl(m: HowlMetrics, recommendations: readonly Recommendation[]): string {
  const fdr = m.fdr === null ? "n/a" : `${fixed(m.fdr, 0)}%`;
  const lines = [
    // With nothing closed, no trade was won or lost: a 0 % win rate would read as data.
    `HOWL: ${m.total_round_trips} round trips, ${m.total_round_trips === 0 ? "WR n/a" : `${fixed(m.win_rate, 0)}% WR`}, net ${formatUsd(m.net_pnl)}`,
    `  Fees: ${fees(m.total_fees)} (FDR ${fdr}) | PF: ${factor(m.net_profit_factor, m.win_count)}`,
  ];
  if (m.long.count + m.short.count > 0) {
    lines.push(
      `  Long: ${m.long.count} (${formatUsd(m.long.net_pnl)}) | Short: ${m.short.count} (${formatUsd(m.short.net_pnl)})`,
    );
  }
  const top = recommendations[0];
  if (top)
    lines.push(`  Top issue: ${top.message.length > 80 ? `${top.message.slice(0, 77)}...` : top.message}`);
  return lines.join("\n");
}
