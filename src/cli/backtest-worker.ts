import type { Command } from "commander";
import { queueSettings, queueUrl } from "../backtest/sweep/queue-settings.ts";
import { startSweepWorker } from "../backtest/sweep/queue-worker.ts";
import { dataDir } from "../config/env.ts";
import { UserError } from "../core/errors.ts";
import { untilStopSignal } from "./signals.ts";

/** `hl backtest worker --queue URL`: run queued sweep points until stopped (SIGTERM, SIGINT). */
export function registerBacktestWorker(backtest: Command): void {
  backtest
    .command("worker")
    .description("Run the points of sweeps queued with `hl backtest --sweep … --queue URL`, one at a time")
    .option("--queue <url>", "Postgres URL of the sweep queue (e.g. $DATABASE_URL)")
    .option(
      "--data-dir <dir>",
      "data directory holding the same history as the submitter's (default: DATA_DIR, else ./data)",
    )
    .action(async (_flags: unknown, cmd: Command) => {
      // `hl backtest` declares --queue and --data-dir too and reads them first: take them from either.
      const f = cmd.optsWithGlobals<{ queue?: string; dataDir?: string }>();
      if (f.queue === undefined)
        throw new UserError("--queue <url> is required (e.g. --queue $DATABASE_URL)");
      const log = (event: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(event)}\n`);
      const worker = await startSweepWorker({
        url: queueUrl(f.queue),
        dataDir: f.dataDir ?? dataDir(),
        settings: queueSettings(),
        log,
      });
      log({ event: "sweep_worker_ready", worker: worker.id });
      await untilStopSignal();
      await worker.stop();
      log({ event: "sweep_worker_stopped", worker: worker.id });
    });
}
