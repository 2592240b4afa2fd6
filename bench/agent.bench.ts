import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Agent, get, request } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BenchReporter, percentile } from "./harness.ts";

/**
 * Agent service (A): /health, /api/status, /api/strategies at concurrency 32 (the server in its own
 * process, as deployed), then 1,000 concurrent /api/feed clients: the time until every one of them has
 * received a tick event, and the server's RSS while they are connected.
 */
const CONCURRENCY = 32;
const DURATION_MS = 3_000;
const SSE_CLIENTS = 1_000;

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

async function startServer(): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(
    process.execPath,
    [join(root, "bin/run-ts.mjs"), join(root, "bench/support/agent-server.ts")],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const base = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`agent server exited (${code})`)));
  });
  return { child, base };
}

function getOnce(agent: Agent, url: URL): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, method: "GET" }, (res) => {
      res.resume();
      res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
    });
    req.on("error", reject);
    req.end();
  });
}

async function load(base: string, path: string): Promise<{ rps: number; p50: number; p99: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const url = new URL(path, base);
  const latencies: number[] = [];
  const end = performance.now() + DURATION_MS;
  const worker = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      await getOnce(agent, url);
      latencies.push(performance.now() - t0);
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const elapsed = (performance.now() - t0) / 1000;
  agent.destroy();
  return { rps: latencies.length / elapsed, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

async function sseFanout(base: string, pid: number, report: BenchReporter): Promise<void> {
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const counts = new Array<number>(SSE_CLIENTS).fill(0);
  const reqs: ReturnType<typeof get>[] = [];
  await Promise.all(
    counts.map(
      (_, i) =>
        new Promise<void>((resolve, reject) => {
          const req = get(new URL("/api/feed", base), { agent }, (res) => {
            res.setEncoding("utf8");
            res.on("data", (chunk: string) => {
              counts[i]! += (chunk.match(/^data: /gm) ?? []).length;
              if (counts[i]! >= 1) resolve();
            });
            res.on("error", () => {});
          });
          req.on("error", reject);
          reqs.push(req);
        }),
    ),
  );
  // Every client has its first event. The next tick broadcast (the feed checks every 2 s, as the
  // contract says) must then reach all of them: time from the first to the last delivery.
  const baseline = counts.map((c) => c);
  const gotAt = new Array<number>(SSE_CLIENTS).fill(0);
  const t0 = performance.now();
  const deadline = t0 + 10_000;
  while (gotAt.some((t) => t === 0) && performance.now() < deadline) {
    const now = performance.now();
    counts.forEach((c, i) => {
      if (gotAt[i] === 0 && c > baseline[i]!) gotAt[i] = now;
    });
    await new Promise((r) => setImmediate(r));
  }
  const delivered = gotAt.filter((t) => t > 0);
  const spread = Math.max(...delivered) - Math.min(...delivered);
  report.figure({
    name: `agent /api/feed: one tick fanned out to ${SSE_CLIENTS} clients`,
    value: spread,
    unit: "ms",
    target: { op: "<", value: 2000 },
  });
  report.figure({
    name: "agent /api/feed: clients reached",
    value: delivered.length,
    unit: "clients",
    target: { op: ">=", value: SSE_CLIENTS },
  });
  report.figure({
    name: "agent /api/feed: wait for the next check (≤ 2 s by design)",
    value: Math.max(...delivered) - t0,
    unit: "ms",
  });
  report.figure({ name: `agent service RSS with ${SSE_CLIENTS} SSE clients`, value: rssMb(pid), unit: "MB" });
  for (const r of reqs) r.destroy();
  agent.destroy();
}

export default async function (report: BenchReporter): Promise<void> {
  const { child, base } = await startServer();
  try {
    await new Promise((r) => setTimeout(r, 1500)); // let the stand-in job write its first state
    for (const path of ["/health", "/api/status", "/api/strategies"]) {
      await load(base, path); // warm-up
      const r = await load(base, path);
      report.figure({ name: `agent ${path} p50 (c=${CONCURRENCY})`, value: r.p50, unit: "ms" });
      report.figure({
        name: `agent ${path} p99 (c=${CONCURRENCY})`,
        value: r.p99,
        unit: "ms",
        target: { op: "<", value: 5 },
      });
      report.figure({
        name: `agent ${path} throughput`,
        value: r.rps,
        unit: "req/s",
        target: { op: ">=", value: 5000 },
      });
    }
    await sseFanout(base, child.pid!, report);
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
  }
}
