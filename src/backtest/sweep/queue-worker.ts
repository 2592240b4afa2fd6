import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type PgBoss from "pg-boss";
import { historyFingerprint } from "./history-fingerprint.ts";
import { recordPoint } from "./queue-results.ts";
import {
  type OpenQueue,
  openQueue,
  type QueueSettings,
  SWEEP_FAILED_QUEUE,
  SWEEP_QUEUE,
  type SweepJobData,
} from "./queue-settings.ts";
import { loadSweepBase } from "./sweep-base.ts";
import { runSweepTask, type SweepBase } from "./sweep-job.ts";

interface SweepWorkerOptions {
  url: string;
  /** This machine's data directory: the history is read from here (and must match the submitter's). */
  dataDir: string;
  settings: QueueSettings;
  /** One event per call, written as one JSON line by the caller. */
  log: (event: Record<string, unknown>) => void;
}

interface SweepWorker {
  id: string;
  /** Finish the run in hand, record it, and stop taking jobs. */
  stop(): Promise<void>;
}

/** The message pg-boss kept for a job that failed (its handler threw, or it expired while active). */
function failureOf(output: unknown): string {
  if (output && typeof output === "object") {
    const o = output as { message?: unknown; value?: { message?: unknown } };
    if (typeof o.message === "string") return o.message;
    if (typeof o.value?.message === "string") return o.value.message;
  }
  return "no reason recorded";
}

/**
 * `hl backtest worker`: takes one grid point at a time from the Postgres queue, runs it with the
 * local sweep's own code on the history read from `dataDir` (kept between the points of one sweep),
 * and records its outcome once. A point whose retries ran out is recorded as failed, so the
 * submitter is never left waiting for it.
 */
export async function startSweepWorker(o: SweepWorkerOptions): Promise<SweepWorker> {
  const id = `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  const queue: OpenQueue = await openQueue(o.url, o.settings, (e) =>
    o.log({ event: "sweep_queue_error", worker: id, error: e.message }),
  );
  let loaded: { key: string; base: SweepBase } | undefined;

  const baseFor = async (data: SweepJobData): Promise<SweepBase> => {
    const key = JSON.stringify([data.inputs, data.fingerprint]);
    if (loaded?.key === key) return loaded.base;
    const { base } = await loadSweepBase({ ...data.inputs, dataDir: o.dataDir });
    const mine = historyFingerprint(base.history, base.szDecimals);
    if (mine !== data.fingerprint)
      throw new Error(
        `the history under ${o.dataDir} differs from the submitter's (${data.inputs.network} ${data.inputs.instrument} ${data.inputs.interval} ${data.inputs.from} → ${data.inputs.to})`,
      );
    loaded = { key, base };
    return base;
  };

  const run = async ([job]: PgBoss.JobWithMetadata<SweepJobData>[]) => {
    if (!job) return;
    const { sweep, task } = job.data;
    const started = Date.now();
    o.log({
      event: "sweep_point_started",
      worker: id,
      sweep,
      point: task.index,
      attempt: job.retryCount + 1,
    });
    try {
      const outcome = await runSweepTask(await baseFor(job.data), task);
      const first = await recordPoint(queue.pool, sweep, outcome, id);
      o.log({
        event: "sweep_point_recorded",
        worker: id,
        sweep,
        point: task.index,
        first,
        ms: Date.now() - started,
      });
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      o.log({ event: "sweep_point_error", worker: id, sweep, point: task.index, error });
      throw e; // failed: pg-boss retries it, here or on another worker
    }
  };

  const giveUp = async ([job]: PgBoss.JobWithMetadata<SweepJobData>[]) => {
    if (!job) return;
    const { sweep, task } = job.data;
    const attempts = job.retryLimit + 1;
    const error = `not run: ${failureOf(job.output)} (${attempts} attempt${attempts === 1 ? "" : "s"})`;
    const first = await recordPoint(queue.pool, sweep, { index: task.index, error }, id);
    o.log({ event: "sweep_point_failed", worker: id, sweep, point: task.index, first, error });
  };

  const polling = { pollingIntervalSeconds: o.settings.pollingIntervalSeconds, batchSize: 1 };
  await queue.boss.work<SweepJobData>(SWEEP_QUEUE, { ...polling, includeMetadata: true }, run);
  await queue.boss.work<SweepJobData>(SWEEP_FAILED_QUEUE, { ...polling, includeMetadata: true }, giveUp);
  return { id, stop: () => queue.close() };
}
