import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { exportSimHistory } from "../market/sim-export.ts";
import {
  type BacktestCommandOptions,
  backtestCommand,
  defaultReportPath,
  formatSummary,
} from "./backtest-command.ts";
import { formatBreakdown } from "./breakdown.ts";

/** The worked examples of docs/backtesting.md: each command, and what it printed. */
const END = Date.UTC(2026, 0, 31);
const EXAMPLES: {
  line: string;
  opts: Partial<BacktestCommandOptions> & Pick<BacktestCommandOptions, "strategy">;
}[] = [
  {
    line: "hl backtest momentum_breakout -i ETH-PERP --from 2026-01-29 --to 2026-01-31 -p breakout_threshold_bps=20 --slippage-bps 0",
    opts: {
      strategy: "momentum_breakout",
      from: "2026-01-29",
      params: { breakout_threshold_bps: 20 },
      slippageBps: 0,
    },
  },
  {
    line: "hl backtest momentum_breakout -i ETH-PERP --from 2026-01-29 --to 2026-01-31 -p breakout_threshold_bps=20",
    opts: { strategy: "momentum_breakout", from: "2026-01-29", params: { breakout_threshold_bps: 20 } },
  },
  {
    line: "hl backtest simple_mm -i ETH-PERP --from 2026-01-30 --to 2026-02-01 --fee-tier 2 --breakdown day",
    opts: { strategy: "simple_mm", from: "2026-01-30", to: "2026-02-01", feeTier: 2, breakdown: "day" },
  },
];

/**
 * Runs the examples in-process on the sim world's exported history (what `hl sim export` writes),
 * through the same code as `hl backtest` (backtestCommand, formatSummary), and returns the block the
 * docs show. `npm run docs:backtest` writes it; a test fails when the docs and a run disagree.
 */
export async function backtestDocExamples(): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), "bt-docs-"));
  try {
    await exportSimHistory({ root, days: 3, coins: ["ETH"], endMs: END });
    const out = ["```", "$ hl sim export --days 3 --coins ETH --to 2026-01-31"];
    for (const ex of EXAMPLES) {
      const r = await backtestCommand({
        instrument: "ETH-PERP",
        to: "2026-01-31",
        params: {},
        risk: {},
        feeTier: 0,
        latencyMs: 0,
        slippageBps: 1,
        interval: "1m",
        network: "paper",
        dataDir: root,
        ...ex.opts,
        from: ex.opts.from ?? "2026-01-29",
        report: join(root, "r.html"),
      });
      const report = `/path/to/data/backtests/${basename(defaultReportPath(root, r.summary))}`;
      out.push(
        `$ ${ex.line}`,
        ...formatSummary(r.summary, "").map((l) => (l === "Report: " ? `Report: ${report}` : l)),
      );
      if (r.breakdown) out.push(...formatBreakdown(r.breakdown));
    }
    out.push("```");
    return out.join("\n");
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
