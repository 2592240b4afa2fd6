import type { Pool } from "../../db/pool.ts";
import type { SweepOutcome } from "./sweep-job.ts";

/** One recorded grid point of a queued sweep. */
interface RecordedPoint {
  point: number;
  outcome: SweepOutcome;
  worker: string;
  seq: number;
}

/**
 * Record a point's outcome once: the first write for (sweep, point) wins and later ones change
 * nothing, so a retried job never counts twice. Returns whether this call was the one recorded.
 */
export async function recordPoint(
  pool: Pool,
  sweep: string,
  outcome: SweepOutcome,
  worker: string,
): Promise<boolean> {
  const r = await pool.query(
    `INSERT INTO backtest_sweep_results (sweep_id, point, outcome, worker, recorded_at_ms)
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (sweep_id, point) DO NOTHING`,
    [sweep, outcome.index, JSON.stringify(outcome), worker, Date.now()],
  );
  return r.rowCount === 1;
}

/** The sweep's points recorded after `afterSeq`, oldest first. */
export async function pointsSince(pool: Pool, sweep: string, afterSeq: number): Promise<RecordedPoint[]> {
  const r = await pool.query<{ point: number; outcome: string; worker: string; seq: number }>(
    `SELECT point, outcome, worker, seq FROM backtest_sweep_results
     WHERE sweep_id = $1 AND seq > $2 ORDER BY seq`,
    [sweep, afterSeq],
  );
  return r.rows.map((row) => ({
    point: row.point,
    outcome: JSON.parse(row.outcome) as SweepOutcome,
    worker: row.worker,
    seq: Number(row.seq),
  }));
}

/** Forget a finished sweep's results (the submitter has them). */
export async function deleteSweep(pool: Pool, sweep: string): Promise<void> {
  await pool.query("DELETE FROM backtest_sweep_results WHERE sweep_id = $1", [sweep]);
}
