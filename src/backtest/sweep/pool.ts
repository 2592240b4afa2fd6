import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { runSweepTask, type SweepBase, type SweepOutcome, type SweepTask } from "./sweep-job.ts";

/**
 * The worker: the compiled script beside this module, or in a source checkout the TypeScript one
 * started through bin/run-ts.mjs (which registers tsx, as `hl` does from source).
 */
function startWorker(base: SweepBase): Worker {
  if (!import.meta.url.endsWith(".ts"))
    return new Worker(new URL("./sweep-worker.js", import.meta.url), { workerData: base });
  const script = fileURLToPath(new URL("./sweep-worker.ts", import.meta.url));
  return new Worker(new URL("../../../bin/run-ts.mjs", import.meta.url), {
    workerData: base,
    argv: [script],
  });
}

/** Workers used when none are asked for: one per core but one, at least one. */
export function defaultWorkers(): number {
  return Math.max(1, availableParallelism() - 1);
}

/**
 * Run the tasks on `workers` worker threads (0: one after another in this thread), each worker taking
 * the next task when it finishes one. Outcomes come back in task order whatever the finishing order.
 * `onDone` reports progress after each task.
 */
export async function runTasks(
  base: SweepBase,
  tasks: readonly SweepTask[],
  workers: number,
  onDone?: (done: number, total: number) => void,
): Promise<SweepOutcome[]> {
  const out = new Array<SweepOutcome>(tasks.length);
  let done = 0;
  const finish = (i: number, o: SweepOutcome) => {
    out[i] = o;
    done += 1;
    onDone?.(done, tasks.length);
  };
  if (workers <= 0) {
    for (const [i, t] of tasks.entries()) finish(i, await runSweepTask(base, t));
    return out;
  }
  const pool = Array.from({ length: Math.min(workers, tasks.length) }, () => startWorker(base));
  let next = 0;
  try {
    await Promise.all(
      pool.map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            const give = () => {
              if (next >= tasks.length) return resolve();
              const i = next++;
              w.once("message", (o: SweepOutcome) => {
                finish(i, o);
                give();
              });
              w.postMessage(tasks[i]);
            };
            w.once("error", reject);
            w.once("exit", (code) => {
              if (next < tasks.length || done < tasks.length)
                reject(new Error(`a sweep worker exited (code ${code})`));
            });
            give();
          }),
      ),
    );
  } finally {
    await Promise.all(pool.map((w) => w.terminate()));
  }
  return out;
}
