import { type ChildProcess, spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BenchReporter, percentile } from "./harness.ts";

/**
 * /info latency of the sim world over loopback at concurrency 32: allMids and l2Book, p50/p99 and
 * req/s. The server runs in its own process (`hl sim serve`), as it does under `hl up`, so the client
 * does not steal its event loop.
 */
const CONCURRENCY = 32;
// About three seconds of sustained load per endpoint: a p99 over a fraction of a second (6,000
// requests) hung on whether one collection or one requote happened to fall inside it (3.9–8.5 ms
// from run to run), and left out most of the world's periodic work.
const REQUESTS = 60_000;
const WARMUP = 3_000;

async function startServer(): Promise<{ child: ChildProcess; url: string }> {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  const child = spawn(
    process.execPath,
    // The per-IP weight limit is off: 60,000 requests from one address measure the server, not the limit.
    [join(root, "bin/hl.mjs"), "sim", "serve", "--port", "0", "--seed", "1", "--ip-weight-limit", "off"],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`sim server exited (${code})`)));
  });
  return { child, url };
}

function post(agent: Agent, url: URL, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        agent,
        headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on("end", () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`)),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function measure(url: URL, body: string, n: number): Promise<{ latencies: number[]; seconds: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const latencies: number[] = [];
  let issued = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (issued < n) {
        issued++;
        const t = performance.now();
        await post(agent, url, body);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return { latencies, seconds };
}

export default async function (r: BenchReporter): Promise<void> {
  const { child, url } = await startServer();
  try {
    // Let the world's start-up burst (house accounts, first ladders, JIT) settle, then warm both paths.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const info = new URL("/info", url);
    const kinds = [
      ["l2Book BTC", JSON.stringify({ type: "l2Book", coin: "BTC" })],
      ["allMids", JSON.stringify({ type: "allMids" })],
    ] as const;
    for (const [, body] of kinds) await measure(info, body, WARMUP);
    for (const [name, body] of kinds) {
      const { latencies, seconds } = await measure(info, body, REQUESTS);
      r.figure({
        name: `sim /info ${name} p50 (c=${CONCURRENCY})`,
        value: percentile(latencies, 50),
        unit: "ms",
      });
      r.figure({
        name: `sim /info ${name} p99 (c=${CONCURRENCY})`,
        value: percentile(latencies, 99),
        unit: "ms",
        target: { op: "<", value: 5 },
      });
      r.figure({ name: `sim /info ${name} throughput`, value: latencies.length / seconds, unit: "req/s" });
    }
  } finally {
    child.kill("SIGTERM");
  }
}
