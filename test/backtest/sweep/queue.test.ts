import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseSweep } from "../../../src/backtest/sweep/grid.ts";
import { historyFingerprint } from "../../../src/backtest/sweep/history-fingerprint.ts";
import { queuedTaskRunner } from "../../../src/backtest/sweep/queue.ts";
import { deleteSweep, pointsSince, recordPoint } from "../../../src/backtest/sweep/queue-results.ts";
import { queueSettings, queueUrl } from "../../../src/backtest/sweep/queue-settings.ts";
import { startSweepWorker } from "../../../src/backtest/sweep/queue-worker.ts";
import { runSweep } from "../../../src/backtest/sweep/run-sweep.ts";
import { loadSweepBase } from "../../../src/backtest/sweep/sweep-base.ts";
import { sweepCommand } from "../../../src/backtest/sweep/sweep-command.ts";
import type { SweepOutcome } from "../../../src/backtest/sweep/sweep-job.ts";
import { UserError } from "../../../src/core/errors.ts";
import { migrate } from "../../../src/db/migrate.ts";
import { createPool, type Pool } from "../../../src/db/pool.ts";
import { writeCandles, writeFunding } from "../../../src/market/index.ts";
import { HL_BIN } from "../../support/hl-process.ts";
import { usePostgres } from "../../support/postgres.ts";
import { simHistory } from "../sim-history.ts";
import { writeSimStore } from "../write-sim-store.ts";

const END = Date.UTC(2026, 2, 3, 0, 0);
const HOUR = 3_600_000;
const postgres = usePostgres();
let url: string;
let pool: Pool;
let root: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "hl-sweep-queue-"));
  await writeSimStore(root, { endMs: END, days: 1, network: "paper" });
  url = await postgres.current.freshDatabase();
  pool = createPool(url);
  await migrate(pool);
}, 60_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  await pool?.end();
});

describe("queued sweep results", () => {
  it("records each grid point once: the first outcome wins, a repeat changes nothing", async () => {
    // Keys in an order JSONB would not keep, and a double that must come back as written.
    const first: SweepOutcome = { index: 3, figures: { z: 0.1 + 0.2, a: "1.50", m: null } as never };
    expect(await recordPoint(pool, "s1", first, "w1")).toBe(true);
    expect(await recordPoint(pool, "s1", { index: 3, error: "late copy" }, "w2")).toBe(false);
    const racing = await Promise.all(
      Array.from({ length: 8 }, (_, k) => recordPoint(pool, "s1", { index: 4, error: `copy ${k}` }, `w${k}`)),
    );
    expect(racing.filter(Boolean)).toHaveLength(1);
    expect(await recordPoint(pool, "s2", { index: 3, error: "another sweep" }, "w2")).toBe(true);

    const rows = await pointsSince(pool, "s1", 0);
    expect(rows.map((r) => r.point)).toEqual([3, 4]);
    expect(rows[0]!.worker).toBe("w1");
    expect(JSON.stringify(rows[0]!.outcome)).toBe(JSON.stringify(first));
    expect(await pointsSince(pool, "s1", rows[1]!.seq)).toEqual([]);
    await deleteSweep(pool, "s1");
    expect(await pointsSince(pool, "s1", 0)).toEqual([]);
    expect(await pointsSince(pool, "s2", 0)).toHaveLength(1);
  });
});

describe("queue settings", () => {
  it("reads the timings from the environment and refuses bad ones and non-Postgres URLs", () => {
    expect(queueSettings({})).toEqual({
      expireInSeconds: 900,
      retryLimit: 3,
      retryDelaySeconds: 5,
      maintenanceIntervalSeconds: 30,
      pollingIntervalSeconds: 2,
    });
    expect(queueSettings({ HL_SWEEP_JOB_EXPIRE_S: "2", HL_SWEEP_POLL_S: "0.5" })).toMatchObject({
      expireInSeconds: 2,
      pollingIntervalSeconds: 0.5,
    });
    for (const env of [
      { HL_SWEEP_JOB_EXPIRE_S: "0" },
      { HL_SWEEP_RETRY_LIMIT: "1.5" },
      { HL_SWEEP_POLL_S: "0.1" },
    ])
      expect(() => queueSettings(env)).toThrow(UserError);
    expect(() => queueUrl("mysql://db/x")).toThrow(/--queue must be a postgres/);
  });
});

describe("a point no worker can run", () => {
  it("is refused by a worker whose history differs, and recorded as failed once its retries run out", async () => {
    const other = mkdtempSync(join(tmpdir(), "hl-sweep-queue-other-"));
    const h = simHistory({ coin: "ETH", szDecimals: 4, endPx: 3400, endMs: END, days: 1, seed: 8 });
    await writeCandles({ root: other, network: "paper", coin: "ETH", interval: "1m" }, h.candles);
    await writeFunding({ root: other, network: "paper", coin: "ETH" }, h.funding);
    const inputs = {
      strategy: "mean_reversion",
      instrument: "ETH-PERP",
      from: new Date(END - 2 * HOUR).toISOString(),
      to: new Date(END).toISOString(),
      params: {},
      risk: {},
      feeTier: 0,
      latencyMs: 0,
      slippageBps: 1,
      interval: "1m",
      network: "paper",
    };
    const settings = {
      ...queueSettings({ HL_SWEEP_POLL_S: "0.5", HL_SWEEP_MAINTENANCE_S: "1" }),
      retryLimit: 0,
    };
    const log: Record<string, unknown>[] = [];
    const worker = await startSweepWorker({ url, dataDir: other, settings, log: (e) => log.push(e) });
    try {
      const { base, fromMs, toMs } = await loadSweepBase({ ...inputs, dataDir: root });
      const result = await runSweep({
        base,
        axes: [parseSweep("threshold_bps=2,6")],
        metric: "return_pct",
        workers: 0,
        fromMs,
        toMs,
        runTasks: queuedTaskRunner({
          url,
          inputs,
          fingerprint: historyFingerprint(base.history, base.szDecimals),
          settings,
          log: () => undefined,
        }),
      });
      expect(result.runs).toHaveLength(2);
      for (const r of result.runs) {
        expect(r.score).toBeNull();
        expect(r.error).toMatch(
          /^not run: the history under .* differs from the submitter's .*\(1 attempt\)$/,
        );
      }
      expect(log.filter((e) => e.event === "sweep_point_error")).toHaveLength(2);
    } finally {
      await worker.stop();
    }
  }, 30_000);
});

/** A running `hl` process and its stdout lines so far. */
function hl(
  args: string[],
  env: Record<string, string>,
): { child: ChildProcess; lines: string[]; errors: string[]; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [HL_BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const lines: string[] = [];
  let partial = "";
  child.stdout!.on("data", (b: Buffer) => {
    const parts = (partial + b.toString()).split("\n");
    partial = parts.pop()!;
    lines.push(...parts);
  });
  const errors: string[] = [];
  child.stderr!.on("data", (b: Buffer) => errors.push(b.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, lines, errors, exited };
}

type Event = { event: string; sweep?: string; point?: number; first?: boolean };
const events = (lines: string[]) => lines.map((l) => JSON.parse(l) as Event);

async function until(ok: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("hl backtest --sweep … --queue", () => {
  it("two workers, one SIGKILLed mid-run: its point is retried, each counted once, output byte for byte the local sweep's", async () => {
    const period = ["--from", new Date(END - 8 * HOUR).toISOString(), "--to", new Date(END).toISOString()];
    const sweep = ["--sweep", "threshold_bps=2,6", "--sweep", "window=10,20", "--metric", "return_pct"];
    const common = [
      "mean_reversion",
      ...period,
      "-p",
      "size=0.5",
      ...sweep,
      "--data-dir",
      root,
      "--network",
      "paper",
    ];
    const worker = ["backtest", "worker", "--queue", url, "--data-dir", root];
    // Fast expiry and maintenance so the killed worker's job comes back in about three seconds.
    const timing = { HL_SWEEP_POLL_S: "0.5", HL_SWEEP_MAINTENANCE_S: "1" };

    // Until the kill, no outcome can be stored: each worker takes one point and waits on this lock
    // to record it. Then both waiting inserts are cancelled (the killed worker's would otherwise still
    // run on the server once the lock is released), so the killed worker dies mid-point with nothing
    // stored and the survivor's first point fails once and is retried. Had the killed worker stored
    // its outcome first, the submitter could finish without the retry this test is about.
    const locker = await pool.connect();
    await locker.query("BEGIN");
    await locker.query("LOCK TABLE backtest_sweep_results IN EXCLUSIVE MODE");
    const workers = [hl(worker, timing), hl(worker, timing)];
    const submitter = hl(["backtest", ...common, "--queue", url, "--json"], {
      ...timing,
      HL_SWEEP_JOB_EXPIRE_S: "2",
      HL_SWEEP_RETRY_DELAY_S: "0",
      HL_SWEEP_RETRY_LIMIT: "10",
    });
    const starts = (w: { lines: string[] }) =>
      events(w.lines).filter((e) => e.event === "sweep_point_started");
    const [killed, survivor] = workers as [(typeof workers)[0], (typeof workers)[0]];
    const waitingInserts = `SELECT pid FROM pg_stat_activity
      WHERE wait_event_type = 'Lock' AND query LIKE '%INSERT INTO backtest_sweep_results%'`;
    try {
      await until(() => workers.every((w) => starts(w).length >= 1), 45_000, "both workers' first point");
      for (const end = Date.now() + 20_000; (await pool.query(waitingInserts)).rowCount! < 2; ) {
        if (Date.now() > end)
          throw new Error("timed out waiting for both workers' inserts to wait on the lock");
        await new Promise((r) => setTimeout(r, 20));
      }
      killed.child.kill("SIGKILL");
      await killed.exited;
      await pool.query(`SELECT pg_cancel_backend(pid) FROM (${waitingInserts}) AS waiting`);
    } catch (e) {
      throw new Error(
        `${(e as Error).message}: ${JSON.stringify([...workers, submitter].map((w) => [w.lines, w.errors.join("")]))}`,
      );
    } finally {
      await locker.query("COMMIT");
      locker.release();
    }
    const killedOn = starts(killed)[0]!.point!;
    const sweepId = starts(killed)[0]!.sweep!;
    // The local sweep runs while the killed worker's job waits to expire.
    const local = await sweepCommand({
      strategy: "mean_reversion",
      instrument: "ETH-PERP",
      from: period[1]!,
      to: period[3]!,
      params: { size: 0.5 },
      risk: {},
      feeTier: 0,
      latencyMs: 0,
      slippageBps: 1,
      interval: "1m",
      network: "paper",
      dataDir: root,
      sweeps: [sweep[1]!, sweep[3]!],
      metric: "return_pct",
      workers: 0,
    });

    expect(await submitter.exited).toBe(0);
    expect(`${submitter.lines.join("\n")}\n`).toBe(`${JSON.stringify(local)}\n`);

    // The killed worker died before storing anything, so the survivor recorded every point (its log
    // line for the last one can reach us a moment after the submitter has read the stored outcome).
    const recordedBy = (w: { lines: string[] }) =>
      events(w.lines).filter((e) => e.event === "sweep_point_recorded");
    await until(() => recordedBy(survivor).length >= 4, 10_000, "the survivor's record of every point");
    const recorded = recordedBy(survivor);
    expect(recordedBy(killed)).toEqual([]);
    expect(recorded.map((e) => e.point).sort()).toEqual([0, 1, 2, 3]);
    expect(recorded.every((e) => e.first)).toBe(true);
    // Every point's job ended: completed, or cancelled by the submitter once it had every outcome
    // (the survivor's last point can still be active between being stored and being completed).
    const states = await pool.query<{ point: number; state: string }>(
      `SELECT (data->'task'->>'index')::int AS point, state FROM pgboss.job
       WHERE name = 'hl-backtest-sweep' AND data->>'sweep' = $1 ORDER BY 1`,
      [sweepId],
    );
    expect(states.rows.map((s) => s.point)).toEqual([0, 1, 2, 3]);
    for (const s of states.rows) expect(["completed", "cancelled"]).toContain(s.state);
    const retried = await pool.query<{ retry_count: number }>(
      `SELECT retry_count FROM pgboss.job
       WHERE name = 'hl-backtest-sweep' AND data->>'sweep' = $1 AND (data->'task'->>'index')::int = $2`,
      [sweepId, killedOn],
    );
    // Retried at least once (more when a slow machine lets even the survivor's run outlive the 2 s expiry).
    expect(retried.rows).toHaveLength(1);
    expect(retried.rows[0]!.retry_count).toBeGreaterThanOrEqual(1);

    survivor.child.kill("SIGTERM");
    expect(await survivor.exited).toBe(0);
  }, 60_000);
});
