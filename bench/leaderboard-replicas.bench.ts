import { type ChildProcess, spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { migrate } from "../src/db/migrate.ts";
import { createPool } from "../src/db/pool.ts";
import { startTestPostgres } from "../test/support/postgres.ts";
import { type BenchReporter, percentile } from "./harness.ts";
import { runLoad } from "./support/http-load.ts";

/**
 * Two leaderboard replicas (own processes) on one Postgres with 10,000 registered agents: how long a
 * registration on one takes to be on the other's board (it reads only the changed row and moves it
 * into place), and how fast the full board is served gzip-compressed: at rest at one connection and
 * at 32 (the lean load generator), revalidated by ETag (304), and while registrations arrive.
 */
const AGENTS = 10_000;
const REGISTRATIONS = Number(process.env.BENCH_REGS ?? 100);
const LOAD_MS = Number(process.env.BENCH_LOAD_MS ?? 3_000);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

type Headers = Record<string, string>;

function get(
  agent: Agent,
  port: number,
  path: string,
  headers: Headers = {},
): Promise<{ ms: number; body: Buffer }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ ms: performance.now() - t0, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

function post(agent: Agent, port: number, path: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(data) },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end(data);
  });
}

async function replica(url: string): Promise<{ child: ChildProcess; port: number; agents: number }> {
  const child = spawn(
    process.execPath,
    [join(ROOT, "bin/run-ts.mjs"), join(ROOT, "bench/support/leaderboard-replica.ts")],
    { env: { ...process.env, DATABASE_URL: url }, stdio: ["ignore", "pipe", "inherit"] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve(out.split("\n")[0]!);
    });
    child.once("exit", (code) => reject(new Error(`leaderboard replica exited (${code})`)));
  });
  return { child, ...(JSON.parse(line) as { port: number; agents: number }) };
}

async function stop(child: ChildProcess): Promise<void> {
  child.kill("SIGTERM");
  await new Promise((res) => child.once("exit", res));
}

const total = async (agent: Agent, port: number) =>
  (
    JSON.parse((await get(agent, port, "/api/leaderboard?network=testnet&limit=0")).body.toString()) as {
      total_agents: number;
    }
  ).total_agents;

export default async function (r: BenchReporter): Promise<void> {
  const postgres = await startTestPostgres();
  const children: ChildProcess[] = [];
  try {
    const url = await postgres.freshDatabase();
    const pool = createPool(url);
    await migrate(pool);
    await pool.query(
      `INSERT INTO leaderboard_agents (network, address, display_name, initial_account_value, registered_at,
         account_value, positions_count, refreshed_at)
       SELECT 'testnet', '0x' || lpad(to_hex(i), 40, '0'), 'agent ' || i, 1000, i, 1000 + (i * 7919) % 2000 - 1000,
         i % 4, i
       FROM generate_series(1, $1) AS i`,
      [AGENTS],
    );
    await pool.end();
    const a = await replica(url);
    const b = await replica(url);
    children.push(a.child, b.child);
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });

    // Reads of the full board, gzip, on a replica at rest (its board settled and compressed small).
    const gzip = { "accept-encoding": "gzip" };
    await new Promise((res) => setTimeout(res, 1_500)); // the replicas' small compression of their first board
    const BOARD = "/api/leaderboard?network=testnet";
    const first = await new Promise<{ etag: string; bytes: number }>((resolve, reject) =>
      request({ host: "127.0.0.1", port: b.port, path: BOARD, agent, headers: gzip }, (res) => {
        let bytes = 0;
        res.on("data", (c: Buffer) => {
          bytes += c.length;
        });
        res.on("end", () => resolve({ etag: String(res.headers.etag), bytes }));
      })
        .on("error", reject)
        .end(),
    );
    const atRest = async (connections: number, headers: string[], status = 200) => {
      await runLoad({ port: b.port, path: BOARD, connections, durationMs: 500, headers, status });
      const res = await runLoad({
        port: b.port,
        path: BOARD,
        connections,
        durationMs: LOAD_MS,
        headers,
        status,
      });
      if (res.errors > 0) throw new Error(`${res.errors} answers were not ${status}`);
      const ms = Array.from(res.latenciesMs);
      return { p50: percentile(ms, 50), p99: percentile(ms, 99), rps: res.requests / (res.elapsedMs / 1000) };
    };
    const one = await atRest(1, ["Accept-Encoding: gzip"]);
    const many = await atRest(32, ["Accept-Encoding: gzip"]);
    const revalidated = await atRest(1, ["Accept-Encoding: gzip", `If-None-Match: ${first.etag}`], 304);

    // Registrations on a, each awaited on b's board; b's full board is read meanwhile.
    const visible: number[] = [];
    const during: number[] = [];
    let reading = true;
    const reader = (async () => {
      while (reading) during.push((await get(agent, b.port, "/api/leaderboard?network=testnet", gzip)).ms);
    })();
    let expected = b.agents;
    for (let i = 0; i < REGISTRATIONS; i++) {
      const address = `0x${(0xbe0000 + i * 7727).toString(16).padStart(40, "f")}`;
      const t0 = performance.now();
      const status = await post(agent, a.port, "/api/register", { address, display_name: `new ${i}` });
      if (status !== 200) throw new Error(`registration answered ${status}`);
      expected++;
      while ((await total(agent, b.port)) < expected) await new Promise((res) => setTimeout(res, 1));
      visible.push(performance.now() - t0);
    }
    reading = false;
    await reader;

    r.figure({
      name: `registration visible on the other replica, p99, ${AGENTS} agents (Postgres, own processes)`,
      value: percentile(visible, 99),
      unit: "ms",
      target: { op: "<", value: 1000 },
    });
    r.figure({
      name: "registration visible on the other replica, p50",
      value: percentile(visible, 50),
      unit: "ms",
    });
    r.figure({
      name: `full board read p99, gzip, ${AGENTS} agents, replica at rest, c=1`,
      value: one.p99,
      unit: "ms",
      target: { op: "<", value: 2 },
    });
    r.figure({ name: "full board read p50, gzip, replica at rest, c=1", value: one.p50, unit: "ms" });
    r.figure({ name: "full board gzip body", value: first.bytes / 1024, unit: "KB" });
    r.figure({
      name: "full board read throughput, gzip, replica at rest, c=32",
      value: many.rps,
      unit: "req/s",
    });
    r.figure({ name: "full board read p99, gzip, replica at rest, c=32", value: many.p99, unit: "ms" });
    r.figure({ name: "full board read p50, gzip, replica at rest, c=32", value: many.p50, unit: "ms" });
    r.figure({
      name: "full board revalidation (If-None-Match, 304) p99, c=1",
      value: revalidated.p99,
      unit: "ms",
    });
    r.figure({
      name: "full board read p99, gzip, c=1, while registrations arrive (node:http client)",
      value: percentile(during, 99),
      unit: "ms",
    });
    agent.destroy();
  } finally {
    for (const c of children) await stop(c);
    await postgres.stop();
  }
}
