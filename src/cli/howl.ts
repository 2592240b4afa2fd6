import type { Command } from "commander";
import { dataDir } from "../config/env.ts";
import { UserError } from "../core/errors.ts";
import { howlHistory, readLatestHowlReport, runHowl } from "../review/howl.ts";
import { TRADE_LOG_MODES, type TradeLogMode } from "../review/trade-log.ts";
import { configuredVault } from "../review/vault-notes.ts";

function sources(raw: string | undefined): readonly TradeLogMode[] {
  if (raw === undefined || raw === "all") return TRADE_LOG_MODES;
  if ((TRADE_LOG_MODES as readonly string[]).includes(raw)) return [raw as TradeLogMode];
  throw new UserError(`--source must be wolf, cli or all, got "${raw}"`);
}

/** `hl howl run | report | history`: the HOWL performance review. */
export function register(program: Command): void {
  const howl = program
    .command("howl")
    .description("HOWL performance review of trades.jsonl (win rate, fee drag, direction, recommendations)");

  howl
    .command("run")
    .description("Review the trade logs and write a report to $DATA_DIR/howl/")
    .option("--since <date>", "only round trips closed on or after this UTC day (YYYY-MM-DD)")
    .option("--source <source>", "wolf | cli | all (default all)")
    .option("--json", "print the metrics and recommendations as JSON")
    .option("--data-dir <dir>", "data directory (default: DATA_DIR, else ./data)")
    .action((opts: { since?: string; source?: string; json?: boolean; dataDir?: string }) => {
      const result = runHowl({
        dataDir: opts.dataDir ?? dataDir(),
        since: opts.since ?? null,
        sources: sources(opts.source),
        vault: configuredVault(),
      });
      if (opts.json) {
        const { roundTrips: _trips, ...rest } = result;
        process.stdout.write(`${JSON.stringify(rest, null, 2)}\n`);
        return;
      }
      if (!result.reportPath) {
        process.stdout.write("No trades found. Run some trades first, then come back.\n");
        return;
      }
      if (result.skippedLines > 0) {
        process.stdout.write(`Skipped ${result.skippedLines} malformed line(s) in trades.jsonl.\n`);
      }
      process.stdout.write(`${result.distill}\n\nFull report saved to: ${result.reportPath}\n`);
      if (result.vaultPath) process.stdout.write(`Copied to the notes vault: ${result.vaultPath}\n`);
    });

  howl
    .command("report")
    .description("Print the newest report (report-latest.md)")
    .option("--data-dir <dir>", "data directory (default: DATA_DIR, else ./data)")
    .action((opts: { dataDir?: string }) => {
      const report = readLatestHowlReport(opts.dataDir ?? dataDir());
      if (report === null) throw new UserError("No HOWL report yet. Run 'hl howl run' first.");
      process.stdout.write(report);
    });

  howl
    .command("history")
    .description("List past reports, newest first")
    .option("-n, --limit <n>", "how many reports", "10")
    .option("--json", "print JSON for machines")
    .option("--data-dir <dir>", "data directory (default: DATA_DIR, else ./data)")
    .action((opts: { limit: string; json?: boolean; dataDir?: string }) => {
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1)
        throw new UserError(`--limit must be a positive integer, got "${opts.limit}"`);
      const rows = howlHistory(opts.dataDir ?? dataDir(), limit);
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        return;
      }
      if (rows.length === 0) {
        process.stdout.write("No HOWL reports yet. Run 'hl howl run' first.\n");
        return;
      }
      for (const r of rows) {
        const pnl = `${r.net_pnl >= 0 ? "+" : ""}${r.net_pnl.toFixed(2)}`;
        process.stdout.write(
          `${r.file.replace(/\.md$/, "").padEnd(20)}  RT: ${String(r.round_trips).padStart(4)}  WR: ${r.win_rate.toFixed(1).padStart(5)}%  PnL: $${pnl}\n`,
        );
      }
    });
}
