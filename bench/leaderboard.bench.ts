import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { RateBudget } from "../src/exchange/index.ts";
import { hlAccountSource } from "../src/services/leaderboard/account-source.ts";
import { Refresher } from "../src/services/leaderboard/refresher.ts";
import { type AgentStore, SqliteAgentStore } from "../src/services/leaderboard/store.ts";
import { startSimWorld } from "../src/sim/world.ts";
import { type BenchReporter, percentile } from "./harness.ts";

/**
 * Leaderboard with 10,000 registered agents: cached reads (latency and throughput over HTTP on
 * loopback), and one full refresh of every agent against a sim world through the exchange client
 * and its weight budget.
 */
const AGENTS = 10_000;
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

const address = (i: number) => `0x${(0xa11ce + i).toString(16).padStart(40, "0")}`;

async function seed(store: AgentStore, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const a = address(i);
    await store.insert({
      network: "testnet",
      address: a,
      displayName: `agent-${i}`,
      initialAccountValue: "10000",
      registeredAt: 1_700_000_000_000 + i,
      ledgerMark: null,
      positionsCount: 0,
    });
    await store.recordSuccess("testnet", a, {
      accountValue: (10_000 + ((i * 7919) % 4001) - 2000 + i / 1000).toFixed(3),
      positionsCount: i % 4,
      netDeposits: "0",
      at: 1_700_000_000_000,
    });
  }
}

type Headers = Record<string, string>;

/** GET a path and drain the body; resolves with the elapsed milliseconds. */
function get(agent: Agent, port: number, path: string, headers: Headers): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, agent, headers }, (res) => {
      res.on("data", () => undefined);
      res.on("end", () => resolve(performance.now() - t0));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

class CountingBudget extends RateBudget {
  spent = 0;
  override take(weight: number): Promise<void> {
    this.spent += weight;
    return super.take(weight);
  }
  override charge(weight: number): void {
    this.spent += weight;
    super.charge(weight);
  }
}

interface ServerInfo {
  child: ChildProcess;
  port: number;
}

/** A bench/support script in its own process; resolves with its first stdout line (JSON) and the child. */
async function startChild<T extends { port: number }>(
  script: string,
  env: Record<string, string>,
): Promise<T & { child: ChildProcess }> {
  const child = spawn(process.execPath, [join(ROOT, "bin/run-ts.mjs"), join(ROOT, "bench/support", script)], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve(out.split("\n")[0]!);
    });
    child.once("exit", (code) => reject(new Error(`${script} exited (${code})`)));
  });
  return { child, ...(JSON.parse(line) as T) };
}

async function stopChild(s: ServerInfo): Promise<void> {
  s.child.kill("SIGTERM");
  await new Promise((res) => s.child.once("exit", res));
}

/** The raw bytes a GET returns (not decompressed). */
function fetchBytes(agent: Agent, port: number, path: string, headers: Headers): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve(Buffer.concat(chunks)));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** Sequential latency samples after a warm-up. */
async function sequential(
  agent: Agent,
  port: number,
  path: string,
  headers: Headers,
  n: number,
): Promise<number[]> {
  for (let i = 0; i < 300; i++) await get(agent, port, path, headers);
  const samples: number[] = [];
  for (let i = 0; i < n; i++) samples.push(await get(agent, port, path, headers));
  return samples;
}

const FULL = "/api/leaderboard?network=testnet";
/** Label, path, the encoding asked for ("revalidate": If-None-Match with the board's ETag → 304). */
const READS = [
  ["full board, brotli", FULL, "br"],
  ["full board, gzip", FULL, "gzip"],
  ["full board, identity", FULL, "identity"],
  ["full board, revalidated (304)", FULL, "revalidate"],
  ["first 100", "/api/leaderboard?network=testnet&limit=100", "identity"],
] as const;

function readHeaders(encoding: (typeof READS)[number][2], etag: string): Headers {
  if (encoding === "revalidate") return { "if-none-match": etag, "accept-encoding": "br, gzip" };
  return encoding === "identity" ? {} : { "accept-encoding": encoding };
}

async function reads(r: BenchReporter, dir: string): Promise<void> {
  const dbPath = join(dir, "reads.db");
  const store = new SqliteAgentStore(dbPath);
  await seed(store, AGENTS);
  await store.close();
  // The service in its own process, as deployed (the client's work here cannot pause it).
  const server = await startChild<{
    port: number;
    rebuildMs: number;
    compressMs: number;
    body: number;
    gzip: number | null;
    brotli: number | null;
    etag: string;
  }>("leaderboard-server.ts", { LEADERBOARD_DB: dbPath });
  r.figure({
    name: `board rebuild, ${AGENTS} agents (rank + serialise)`,
    value: server.rebuildMs,
    unit: "ms",
  });
  r.figure({ name: "full board body", value: server.body / 1024, unit: "KiB" });
  r.figure({ name: "full board body, gzip", value: (server.gzip ?? Number.NaN) / 1024, unit: "KiB" });
  r.figure({ name: "full board body, brotli", value: (server.brotli ?? Number.NaN) / 1024, unit: "KiB" });
  r.figure({
    name: "full board: gzip + brotli once per refresh (thread pool)",
    value: server.compressMs,
    unit: "ms",
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  let baseline: ServerInfo | undefined;
  try {
    const manifest: Record<string, string> = {};
    for (const [label, path, encoding] of READS) {
      if (encoding === "revalidate") continue;
      const file = join(dir, `${label.replace(/\W+/g, "-")}.bin`);
      writeFileSync(file, await fetchBytes(agent, server.port, path, readHeaders(encoding, server.etag)));
      manifest[`${path} ${encoding}`] = file;
    }
    writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest));
    baseline = await startChild("bytes-server.ts", { MANIFEST: join(dir, "manifest.json") });

    for (const [label, path, encoding] of READS) {
      const headers = readHeaders(encoding, server.etag);
      const samples = await sequential(agent, server.port, path, headers, 5000);
      // bare node:http has no 304: a revalidation stands alone
      const bare =
        encoding === "revalidate" ? undefined : await sequential(agent, baseline.port, path, headers, 5000);
      const vsBare = (p: number) =>
        bare ? { baseline: { name: "bare node:http, same bytes", value: percentile(bare, p) } } : {};
      r.figure({
        name: `read p99, ${label}, ${AGENTS} agents (sequential)`,
        value: percentile(samples, 99),
        unit: "ms",
        target: { op: "<", value: 2 },
        ...vsBare(99),
      });
      r.figure({ name: `read p50, ${label}`, value: percentile(samples, 50), unit: "ms", ...vsBare(50) });
      const started = performance.now();
      let done = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (performance.now() - started < 2000) {
            await get(agent, server.port, path, headers);
            done++;
          }
        }),
      );
      r.figure({
        name: `reads/s, ${label}, 8 connections`,
        value: done / ((performance.now() - started) / 1000),
        unit: "req/s",
      });
    }
  } finally {
    agent.destroy();
    await stopChild(server);
    if (baseline) await stopChild(baseline);
  }
}

async function refresh(r: BenchReporter, dir: string): Promise<void> {
  // The per-IP weight limit is off: it refreshes many agents as fast as it can, past one IP's 1200 weight a minute.
  const world = await startSimWorld({ ipWeightLimit: false, port: 0, seed: 21, houseMakers: false });
  // The sim world is ours: give the client a budget it can fill, and check it was never exceeded.
  const weightPerMinute = 1_200_000;
  const budget = new CountingBudget({ weightPerMinute });
  const accounts = await hlAccountSource(
    { testnet: world.url, mainnet: world.url, paper: world.url },
    30_000,
    {
      env: {},
      budget,
    },
  );
  const store = new SqliteAgentStore(join(dir, "refresh.db"));
  await seed(store, AGENTS);
  const refresher = new Refresher({
    store,
    source: accounts.source,
    networks: ["testnet"],
    intervalMs: 45_000,
    concurrency: 16,
    agentTimeoutMs: 30_000,
    staggerMs: 0,
  });
  try {
    const spentBefore = budget.spent;
    const t0 = performance.now();
    const [report] = await refresher.cycle();
    const seconds = (performance.now() - t0) / 1000;
    const weight = budget.spent - spentBefore;
    const perAgent = weight / AGENTS;
    r.figure({
      name: `full refresh, ${AGENTS} agents on the sim world`,
      value: seconds,
      unit: "s",
      target: { op: "<", value: 600 },
    });
    r.figure({
      name: "refresh failures",
      value: report?.failed ?? -1,
      unit: "agents",
      target: { op: "<=", value: 0 },
    });
    // Seeded agents carry no refresh tracking: this is each agent's one full read (every dex and the
    // ledger); later refreshes cost 2 for most agents (bench leaderboard-workers).
    r.figure({ name: "request weight per agent, first (full) refresh", value: perAgent, unit: "weight" });
    r.figure({
      name: "weight rate used (client budget 1.2M/min; the sim is the bottleneck)",
      value: weight / (seconds / 60),
      unit: "weight/min",
      target: { op: "<=", value: weightPerMinute },
    });
    r.figure({
      name: `first full refresh at Hyperliquid's 1200 weight/min, ${AGENTS} agents (projected)`,
      value: weight / 1200,
      unit: "min",
    });
    r.figure({
      name: "agents given a first full refresh per 45 s at 1200 weight/min",
      value: (1200 * 0.75) / perAgent,
      unit: "agents",
    });
  } finally {
    await refresher.stop();
    await store.close();
    await accounts.close();
    await world.close();
  }
}

export default async function (r: BenchReporter): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "lb-bench-"));
  try {
    await reads(r, dir);
    await refresh(r, dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
