import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BenchReporter, percentile } from "./harness.ts";
import { ensureBuilt, rssMb } from "./support/footprint.ts";
import { runLoad } from "./support/http-load.ts";

/**
 * The HTTP stack comparison behind docs/http-stack.md: bare node:http, our former router, fastify
 * and Hono (on @hono/node-server) each serve the same `/health` and `/items/:id` in their own plain
 * node process (our router from the build); per stack, RSS at rest and after load, and throughput and p99 of `/health`
 * at one connection and at 32. The load generator is bench/support/http-load.ts (a worker thread).
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const STACKS = (process.env.HTTP_STACKS ?? "bare,router,fastify,hono").split(",");
const DURATION_MS = Number(process.env.HTTP_STACK_DURATION_MS ?? 3_000);

async function start(stack: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(
    process.execPath,
    [join(ROOT, "bench/support/stack-server.mjs")],
    // The router logs its start line on stderr: not this figure's business.
    { env: { ...process.env, STACK: stack }, stdio: ["ignore", "pipe", "ignore"] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve(out.split("\n")[0]!);
    });
    child.once("exit", (code) => reject(new Error(`${stack} server exited (${code})`)));
  });
  return { child, port: (JSON.parse(line) as { port: number }).port };
}

async function load(port: number, path: string, connections: number) {
  await runLoad({ port, path, connections, durationMs: 500 }); // warm-up
  const r = await runLoad({ port, path, connections, durationMs: DURATION_MS });
  const latencies = Array.from(r.latenciesMs);
  return { rps: r.requests / (r.elapsedMs / 1000), p99: percentile(latencies, 99), errors: r.errors };
}

export default async function (report: BenchReporter): Promise<void> {
  ensureBuilt();
  for (const stack of STACKS) {
    const { child, port } = await start(stack);
    try {
      await new Promise((r) => setTimeout(r, 500));
      report.figure({ name: `http stack ${stack}: RSS at rest`, value: rssMb(child.pid!), unit: "MB" });
      for (const [path, connections] of [
        ["/health", 1],
        ["/health", 32],
        ["/items/42", 32],
      ] as const) {
        const r = await load(port, path, connections);
        if (r.errors > 0) throw new Error(`${stack} ${path}: ${r.errors} non-200 answers`);
        report.figure({
          name: `http stack ${stack}: ${path} c=${connections} throughput`,
          value: r.rps,
          unit: "req/s",
        });
        report.figure({
          name: `http stack ${stack}: ${path} c=${connections} p99`,
          value: r.p99,
          unit: "ms",
        });
      }
      report.figure({ name: `http stack ${stack}: RSS after load`, value: rssMb(child.pid!), unit: "MB" });
    } finally {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    }
  }
}
