import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Agent, fetch as undiciFetch } from "undici";
import { migrate } from "../src/db/migrate.ts";
import { createPool, type Pool } from "../src/db/pool.ts";
import { RateBudget } from "../src/exchange/index.ts";
import { hlAccountSource } from "../src/services/leaderboard/account-source.ts";
import { type LedgerMark, type LedgerUpdate, markOf } from "../src/services/leaderboard/ledger.ts";
import { RefreshQueue } from "../src/services/leaderboard/queue.ts";
import type { Tracking } from "../src/services/leaderboard/tracking.ts";
import { RefreshWorker } from "../src/services/leaderboard/worker.ts";
import { startTestPostgres } from "../test/support/postgres.ts";
import type { BenchReporter } from "./harness.ts";

/**
 * Leaderboard refresh workers on the Postgres queue against a sim world that enforces Hyperliquid's
 * per-IP limit, each worker with its own loopback source address and weight budget.
 *
 * Time is scaled: the sim's per-IP limit and every worker's budget are SCALE × 1200 weight/min and
 * the window is 45 s / SCALE, so the agents refreshed in the window are the agents one 45 s cycle
 * keeps fresh at 1200/min (the same weight per window). Each worker's budget starts empty (no
 * minute's burst), and the window opens after a warm-up, so the figure is the steady rate.
 */
const SCALE = 4;
const EXCHANGE_WEIGHT_PER_MIN = 1200;
const CYCLE_MS = 45_000;
const WINDOW_MS = CYCLE_MS / SCALE;
const WARMUP_MS = 1_500;
const AGENTS = 2_500;
/**
 * 1 in MOVED_EVERY agents deposited since its last refresh (its refresh reads the ledger: 2 + 20
 * weight); the others only saw prices move (2). A trade costs the same as a deposit.
 */
const MOVED_EVERY = 50;
const STARTING_BALANCE = "10000";

/** Each run has its own agents (fresh sim accounts), so deposits of one run do not carry over. */
interface Sim {
  url: string;
}

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

async function startSim(ipWeightLimit: number): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [join(ROOT, "bin/run-ts.mjs"), join(ROOT, "bench/support/limited-sim.ts")],
    {
      env: { ...process.env, IP_WEIGHT_LIMIT: String(ipWeightLimit) },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve(out.split("\n")[0]!);
    });
    child.once("exit", (code) => reject(new Error(`limited-sim exited (${code})`)));
  });
  return { child, url: (JSON.parse(line) as { url: string }).url };
}

const address = (run: number, i: number) =>
  `0x${(0xf00d0000 + run * 0x10000 + i).toString(16).padStart(40, "0")}`;

class CountingBudget extends RateBudget {
  spent = 0;
  override async take(weight: number): Promise<void> {
    await super.take(weight);
    this.spent += weight;
  }
  override charge(weight: number): void {
    this.spent += weight;
    super.charge(weight);
  }
}

/** Agents as registration leaves them: a fresh sim account (10,000 USDC, no positions), tracking anchored. */
async function seed(world: Sim, pool: Pool, runId: number, movedEvery: number): Promise<void> {
  const tracking: Tracking = {
    dexes: [],
    cursor: null,
    anchor: STARTING_BALANCE,
    signature: "",
    scannedAt: Date.now(),
  };
  for (let from = 0; from < AGENTS; from += 500) {
    const values: string[] = [];
    const params: unknown[] = [];
    for (let i = from; i < Math.min(AGENTS, from + 500); i++) {
      const moved = movedEvery > 0 && i % movedEvery === 0;
      let agentTracking = tracking;
      if (moved) {
        // Registered first (the ledger read up to then), then 100 USDC deposited.
        agentTracking = { ...tracking, cursor: await ledgerMark(world, address(runId, i)) };
        await deposit(world, address(runId, i), "100");
      }
      params.push(address(runId, i), JSON.stringify(agentTracking));
      values.push(
        `('testnet', $${params.length - 1}, '${moved ? "moved" : ""}', ${STARTING_BALANCE}, 0, ${STARTING_BALANCE}, $${params.length}, 0)`,
      );
    }
    await pool.query(
      `INSERT INTO leaderboard_agents (network, address, display_name, initial_account_value, registered_at,
         account_value, tracking, due_at) VALUES ${values.join(", ")}`,
      params,
    );
  }
}

/** Seeding reads come from addresses of their own (100 reads each: within one minute's limit). */
let seedReads = 0;
const seedDispatchers = new Map<number, Agent>();

/** Where an account's ledger stands now (read outside the workers' addresses and budgets). */
async function ledgerMark(world: Sim, user: string): Promise<LedgerMark | null> {
  const slot = Math.floor(seedReads++ / 100);
  let dispatcher = seedDispatchers.get(slot);
  if (!dispatcher) {
    dispatcher = new Agent({ localAddress: `127.0.${100 + slot}.1` });
    seedDispatchers.set(slot, dispatcher);
  }
  const res = await undiciFetch(`${world.url}/info`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ type: "userNonFundingLedgerUpdates", user, startTime: 0 }),
    dispatcher,
  });
  if (!res.ok) throw new Error(`ledger read failed: ${res.status}`);
  return markOf((await res.json()) as LedgerUpdate[]);
}

async function deposit(world: Sim, user: string, amount: string): Promise<void> {
  const res = await fetch(`${world.url}/sim/deposit`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user, amount }),
  });
  if (!res.ok) throw new Error(`deposit failed: ${res.status}`);
}

interface Run {
  refreshed: number;
  weight: number;
  failed: number;
  movedRefreshed: number;
  depositsCounted: number;
}

let runs = 0;

async function run(world: Sim, pool: Pool, workers: number, movedEvery: number): Promise<Run> {
  const runId = ++runs;
  await pool.query("TRUNCATE leaderboard_agents");
  await seed(world, pool, runId, movedEvery);
  const weightPerMinute = EXCHANGE_WEIGHT_PER_MIN * SCALE;
  const started: { worker: RefreshWorker; budget: CountingBudget; close(): Promise<void> }[] = [];
  for (let k = 0; k < workers; k++) {
    const budget = new CountingBudget({ weightPerMinute });
    const accounts = await hlAccountSource(
      { testnet: world.url, mainnet: world.url, paper: world.url },
      10_000,
      {
        env: {},
        budget,
        localAddress: `127.0.0.${10 + runId * 10 + k}`,
      },
    );
    const worker = new RefreshWorker({
      queue: new RefreshQueue(pool, `bench-${workers}-${k}`, 30_000),
      source: accounts.source,
      concurrency: 8,
      intervalMs: CYCLE_MS / SCALE,
      agentTimeoutMs: 10_000,
      idleMs: 100,
    });
    started.push({ worker, budget, close: () => accounts.close() });
  }
  for (const s of started) s.worker.start();
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  const t0 = Date.now();
  const spent0 = started.reduce((n, s) => n + s.budget.spent, 0);
  await new Promise((r) => setTimeout(r, WINDOW_MS));
  const t1 = Date.now();
  const spent1 = started.reduce((n, s) => n + s.budget.spent, 0);
  for (const s of started) await s.worker.stop();
  for (const s of started) await s.close();
  const counted = await pool.query<{ refreshed: number; moved: number; deposits: number }>(
    `SELECT COUNT(*) FILTER (WHERE refreshed_at BETWEEN $1 AND $2) AS refreshed,
       COUNT(*) FILTER (WHERE display_name = 'moved' AND refreshed_at IS NOT NULL) AS moved,
       COUNT(*) FILTER (WHERE display_name = 'moved' AND refreshed_at IS NOT NULL AND net_deposits = 100
         AND account_value - initial_account_value - net_deposits = 0) AS deposits
     FROM leaderboard_agents`,
    [t0, t1],
  );
  const c = counted.rows[0]!;
  return {
    refreshed: c.refreshed,
    weight: spent1 - spent0,
    failed: started.reduce((n, s) => n + s.worker.stats.failed, 0),
    movedRefreshed: c.moved,
    depositsCounted: c.deposits,
  };
}

export default async function (r: BenchReporter): Promise<void> {
  const postgres = await startTestPostgres();
  // The sim in its own process, as the exchange is: the workers' CPU is not the exchange's.
  const sim = await startSim(EXCHANGE_WEIGHT_PER_MIN * SCALE);
  const world: Sim = { url: sim.url };
  const pool = createPool(await postgres.freshDatabase());
  try {
    await migrate(pool);
    const results = new Map<number, Run>();
    const plural = (n: number) => `${n} worker${n > 1 ? "s" : ""}`;
    for (const workers of [1, 2, 4]) {
      const res = await run(world, pool, workers, MOVED_EVERY);
      results.set(workers, res);
      r.figure({
        name: `agents kept fresh per 45 s, ${plural(workers)} (${SCALE}× clock)`,
        value: res.refreshed,
        unit: "agents",
        target: { op: ">=", value: 300 * workers },
      });
      r.figure({
        name: `  weight per agent per refresh, ${plural(workers)}`,
        value: res.weight / res.refreshed,
        unit: "weight",
      });
      r.figure({
        name: `  weight budget used, ${plural(workers)} (below 100 %: this machine, not the limit)`,
        value: (100 * res.weight) / ((workers * EXCHANGE_WEIGHT_PER_MIN * CYCLE_MS) / 60_000),
        unit: "%",
      });
      r.figure({
        name: `  refresh failures (incl. 429), ${plural(workers)}`,
        value: res.failed,
        unit: "agents",
        target: { op: "<=", value: 0 },
      });
      r.figure({
        name: `  deposits missed (of ${res.movedRefreshed} refreshed), ${plural(workers)}`,
        value: res.movedRefreshed - res.depositsCounted,
        unit: "agents",
        target: { op: "<=", value: 0 },
      });
    }
    const one = results.get(1)!.refreshed;
    r.figure({
      name: "scaling 1 → 4 workers (4.0 = linear)",
      value: results.get(4)!.refreshed / one,
      unit: "×",
      target: { op: ">=", value: 3.6 },
    });
    for (const movedEvery of [0, 10]) {
      const res = await run(world, pool, 1, movedEvery);
      const mix =
        movedEvery === 0 ? "no agent moved money or traded" : `1 in ${movedEvery} agents moved money`;
      r.figure({
        name: `agents kept fresh per 45 s, 1 worker, ${mix}`,
        value: res.refreshed,
        unit: "agents",
      });
      r.figure({
        name: `  weight per agent per refresh, ${mix}`,
        value: res.weight / res.refreshed,
        unit: "weight",
        baseline: { name: "every dex + ledger before (26)", value: 26 },
      });
    }
  } finally {
    await Promise.all([...seedDispatchers.values()].map((d) => d.close()));
    await pool.end();
    sim.child.kill("SIGTERM");
    await new Promise((res) => sim.child.once("exit", res));
    await postgres.stop();
  }
}
