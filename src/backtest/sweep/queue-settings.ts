import type PgBoss from "pg-boss";
import { UserError } from "../../core/errors.ts";
import { migrate } from "../../db/migrate.ts";
import { createPool, type Pool } from "../../db/pool.ts";
import type { BacktestInputs } from "../run-inputs.ts";
import type { SweepTask } from "./sweep-job.ts";

/** The queue every sweep's points go to, and where pg-boss moves a point whose retries ran out. */
export const SWEEP_QUEUE = "hl-backtest-sweep";
export const SWEEP_FAILED_QUEUE = "hl-backtest-sweep-failed";

/** One queued grid point: which sweep, the backtest's inputs by name, the data's digest, the run. */
export interface SweepJobData {
  sweep: string;
  /** Everything `hl backtest` was given but the data directory, which is each worker's own. */
  inputs: Omit<BacktestInputs, "dataDir">;
  /** historyFingerprint of the submitter's history: a worker with other data refuses the job. */
  fingerprint: string;
  task: SweepTask;
}

/** How the queue treats a job: how long a run may hold it, how it is retried, how often it is looked at. */
export interface QueueSettings {
  /** A job active this long is taken as lost (its worker killed) and retried (HL_SWEEP_JOB_EXPIRE_S, default 900). */
  expireInSeconds: number;
  /** Retries after the first attempt (HL_SWEEP_RETRY_LIMIT, default 3). */
  retryLimit: number;
  /** Wait before a retry (HL_SWEEP_RETRY_DELAY_S, default 5). */
  retryDelaySeconds: number;
  /** How often expired jobs are looked for (HL_SWEEP_MAINTENANCE_S, default 30). */
  maintenanceIntervalSeconds: number;
  /** How often an idle worker asks for a job, and the submitter for results (HL_SWEEP_POLL_S, default 2, at least 0.5). */
  pollingIntervalSeconds: number;
}

type Env = Record<string, string | undefined>;

export function queueSettings(env: Env = process.env): QueueSettings {
  const read = (name: string, fallback: number, min: number, max: number, integer: boolean) => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === "") return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n)))
      throw new UserError(
        `${name} must be ${integer ? "a whole number" : "a number"} from ${min} to ${max}, got "${raw}"`,
      );
    return n;
  };
  return {
    expireInSeconds: read("HL_SWEEP_JOB_EXPIRE_S", 900, 1, 86_399, true),
    retryLimit: read("HL_SWEEP_RETRY_LIMIT", 3, 0, 100, true),
    retryDelaySeconds: read("HL_SWEEP_RETRY_DELAY_S", 5, 0, 3600, true),
    maintenanceIntervalSeconds: read("HL_SWEEP_MAINTENANCE_S", 30, 1, 3600, true),
    pollingIntervalSeconds: read("HL_SWEEP_POLL_S", 2, 0.5, 3600, false),
  };
}

/** The `--queue` value: a Postgres URL, checked before anything connects. */
export function queueUrl(raw: string): string {
  const url = raw.trim();
  if (!/^postgres(ql)?:\/\/./.test(url))
    throw new UserError("--queue must be a postgres:// or postgresql:// URL (e.g. --queue $DATABASE_URL)");
  return url;
}

/** A pg-boss instance and a pool on the queue's database, both queues created, the results table migrated. */
export interface OpenQueue {
  boss: PgBoss;
  pool: Pool;
  close(): Promise<void>;
}

export async function openQueue(
  url: string,
  settings: QueueSettings,
  onError: (e: Error) => void,
): Promise<OpenQueue> {
  // Loaded here: every other `hl` command starts without pg-boss.
  const { default: Boss } = await import("pg-boss");
  const pool = createPool(url, { ...process.env, DATABASE_POOL_MAX: "2" });
  const boss = new Boss({
    connectionString: url,
    max: 3,
    application_name: "hl-backtest-sweep",
    maintenanceIntervalSeconds: settings.maintenanceIntervalSeconds,
  });
  boss.on("error", onError);
  try {
    await migrate(pool);
    await boss.start();
    // The failed-jobs queue first: the sweep queue refers to it.
    await boss.createQueue(SWEEP_FAILED_QUEUE);
    await boss.createQueue(SWEEP_QUEUE, { name: SWEEP_QUEUE, deadLetter: SWEEP_FAILED_QUEUE });
  } catch (e) {
    await boss.stop({ graceful: false, wait: true }).catch(() => undefined);
    await pool.end().catch(() => undefined);
    throw new UserError(`the sweep queue's database: ${e instanceof Error ? e.message : String(e)}`);
  }
  return {
    boss,
    pool,
    async close() {
      await boss.stop({ graceful: true, wait: true, timeout: 30_000 });
      await pool.end();
    },
  };
}
