import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { UserError } from "../../core/errors.ts";
import type { runTasks } from "./pool.ts";
import { deleteSweep, pointsSince } from "./queue-results.ts";
import {
  openQueue,
  type QueueSettings,
  SWEEP_FAILED_QUEUE,
  SWEEP_QUEUE,
  type SweepJobData,
} from "./queue-settings.ts";
import type { SweepOutcome } from "./sweep-job.ts";

interface QueuedSweepOptions {
  url: string;
  inputs: SweepJobData["inputs"];
  fingerprint: string;
  settings: QueueSettings;
  /** One human line per event worth telling (queued, progress); the default writes to stderr. */
  log?: (line: string) => void;
}

/** Jobs inserted per statement (a 10,000-point grid is twenty of them). */
const INSERT_CHUNK = 500;

/**
 * A task runner (same contract as the worker-thread pool's) that sends every task to the Postgres
 * queue as one job and waits until `hl backtest worker` processes have recorded an outcome for each:
 * outcomes come back in task order, so ranking and output are those of a local sweep. Interrupted
 * (SIGINT, SIGTERM), it cancels the jobs still waiting and gives up with a readable error.
 */
export function queuedTaskRunner(o: QueuedSweepOptions): typeof runTasks {
  const log = o.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  return async (_base, tasks, _workers, onDone) => {
    if (tasks.length === 0) return [];
    let interrupted = false;
    const interrupt = () => {
      interrupted = true;
    };
    const queue = await openQueue(o.url, o.settings, (e) => log(`sweep queue: ${e.message}`));
    const sweep = randomUUID();
    const position = new Map(tasks.map((t, i) => [t.index, i]));
    const jobIds = tasks.map(() => randomUUID());
    const out = new Array<SweepOutcome | undefined>(tasks.length);
    let done = 0;
    process.once("SIGINT", interrupt);
    process.once("SIGTERM", interrupt);
    try {
      for (let from = 0; from < tasks.length; from += INSERT_CHUNK) {
        await queue.boss.insert(
          tasks.slice(from, from + INSERT_CHUNK).map((task, k) => {
            const data: SweepJobData = { sweep, inputs: o.inputs, fingerprint: o.fingerprint, task };
            return {
              id: jobIds[from + k]!,
              name: SWEEP_QUEUE,
              data,
              retryLimit: o.settings.retryLimit,
              retryDelay: o.settings.retryDelaySeconds,
              expireInSeconds: o.settings.expireInSeconds,
              deadLetter: SWEEP_FAILED_QUEUE,
            };
          }),
        );
      }
      log(`sweep ${sweep}: ${tasks.length} runs queued; waiting for \`hl backtest worker\` processes`);
      let seq = 0;
      while (done < tasks.length) {
        if (interrupted) throw new UserError(`sweep ${sweep} interrupted; its waiting jobs are cancelled`);
        const before = done;
        for (const r of await pointsSince(queue.pool, sweep, seq)) {
          seq = Math.max(seq, r.seq);
          const i = position.get(r.point);
          if (i === undefined || out[i] !== undefined) continue;
          out[i] = r.outcome;
          done += 1;
          onDone?.(done, tasks.length);
        }
        if (done > before) log(`sweep ${sweep}: ${done}/${tasks.length} runs done`);
        if (done < tasks.length) await sleep(o.settings.pollingIntervalSeconds * 1000);
      }
      return out as SweepOutcome[];
    } finally {
      process.off("SIGINT", interrupt);
      process.off("SIGTERM", interrupt);
      // Whatever is still waiting (points not run, or a second copy of one that outlived its expiry)
      // has no one left to read it.
      await queue.boss.cancel(SWEEP_QUEUE, jobIds).catch(() => undefined);
      await deleteSweep(queue.pool, sweep).catch(() => undefined);
      await queue.close();
    }
  };
}
