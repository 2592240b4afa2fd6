import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanEnv, freeUpPorts, getJson, HL, sleep, until } from "../test/e2e/up-helpers.ts";
import { type BenchReporter, percentile } from "./harness.ts";
import { ensureBuilt, rssMb } from "./support/footprint.ts";
import { runLoad } from "./support/http-load.ts";

/**
 * The agent service's tail, as deployed (compiled build, `hl sim serve` and `hl agent serve` each in
 * their own process, RUN_MODE=wolf with a live WOLF child ticking every 2 s): RSS at rest, `/health`
 * at one connection and at 32, RSS after the load, and what the machine spent meanwhile (CPU of the
 * service and of its trading child). The predecessor's `/health` throughput at c=32 on the same
 * machine is not in this repository: give it as PREDECESSOR_HEALTH_RPS to see the ratio (goal ≥ 10×).
 */
const WOLF_TICK_S = 2;
const DURATION_MS = Number(process.env.AGENT_TAIL_DURATION_MS ?? 5_000);

function startHl(args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [HL, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const keep = (b: Buffer) => {
    out = (out + b.toString()).slice(-20_000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  return { child, output: () => out };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  const killer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(killer);
}

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return Number.NaN;
  }
}

async function load(port: number, connections: number) {
  await runLoad({ port, path: "/health", connections, durationMs: 1_000 }); // warm-up
  const r = await runLoad({ port, path: "/health", connections, durationMs: DURATION_MS });
  const latencies = Array.from(r.latenciesMs);
  return { rps: r.requests / (r.elapsedMs / 1000), p99: percentile(latencies, 99), errors: r.errors };
}

export default async function (r: BenchReporter): Promise<void> {
  ensureBuilt();
  const dir = mkdtempSync(join(tmpdir(), "hl-agent-tail-"));
  const ports = await freeUpPorts();
  const env = { ...cleanEnv(), HL_FROM_SOURCE: "0", HL_AGENT_HOME: join(dir, "home") };
  const sim = startHl(["sim", "serve", "--port", String(ports.sim)], env);
  let agent: ReturnType<typeof startHl> | undefined;
  try {
    await until("sim world", async () => /listening on/.test(sim.output()) || undefined, Date.now() + 60_000);
    const wolfConfig = join(dir, "wolf-config.json");
    writeFileSync(wolfConfig, JSON.stringify({ movers_min_volume_24h: 1000, scanner_min_volume_24h: 1000 }));
    agent = startHl(["agent", "serve"], {
      ...env,
      PORT: String(ports.agent),
      HOST: "127.0.0.1",
      RUN_MODE: "wolf",
      HL_NETWORK: "paper",
      HL_API_URL: `http://127.0.0.1:${ports.sim}`,
      HL_PRIVATE_KEY: "",
      DATA_DIR: join(dir, "data"),
      WOLF_TICK: String(WOLF_TICK_S),
      WOLF_CONFIG: wolfConfig,
      // Experiments: the agent service's own node flags and environment (e.g. MALLOC_ARENA_MAX).
      ...(process.env.AGENT_NODE_OPTIONS ? { NODE_OPTIONS: process.env.AGENT_NODE_OPTIONS } : {}),
      ...(JSON.parse(process.env.AGENT_EXTRA_ENV ?? "{}") as Record<string, string>),
    });
    const base = `http://127.0.0.1:${ports.agent}`;
    const health = await until(
      "a ticking WOLF child",
      async () => {
        const h = await getJson<{ pid: number | null; alive: boolean; last_tick_age_s: number | null }>(
          `${base}/health`,
        );
        return h?.alive && h.pid && h.last_tick_age_s !== null ? h : undefined;
      },
      Date.now() + 120_000,
    );
    const servicePid = agent.child.pid!;
    const childPid = health.pid!;
    await sleep(5_000); // at rest: the child ticks, nobody asks
    r.figure({
      name: "agent service RSS at rest, live WOLF child",
      value: rssMb(servicePid),
      unit: "MB",
      target: { op: "<=", value: 60 },
    });

    const serviceCpu0 = cpuSeconds(servicePid);
    const childCpu0 = cpuSeconds(childPid);
    const t0 = performance.now();
    const one = await load(ports.agent, 1);
    r.figure({ name: "agent /health c=1, live WOLF: throughput", value: one.rps, unit: "req/s" });
    r.figure({
      name: "agent /health c=1, live WOLF: p99",
      value: one.p99,
      unit: "ms",
      target: { op: "<=", value: 1 },
    });
    const many = await load(ports.agent, 32);
    const predecessor = Number(process.env.PREDECESSOR_HEALTH_RPS);
    r.figure({
      name: "agent /health c=32, live WOLF: throughput",
      value: many.rps,
      unit: "req/s",
      ...(predecessor > 0
        ? {
            baseline: { name: "predecessor", value: predecessor },
            target: { op: ">=", value: 10 * predecessor },
          }
        : {}),
    });
    r.figure({
      name: "agent /health c=32, live WOLF: p99",
      value: many.p99,
      unit: "ms",
      target: { op: "<", value: 5 },
    });
    r.figure({
      name: "agent /health under load: non-200 answers",
      value: one.errors + many.errors,
      unit: "answers",
      target: { op: "<=", value: 0 },
    });
    const seconds = (performance.now() - t0) / 1000;
    r.figure({
      name: "agent service CPU during the load",
      value: (100 * (cpuSeconds(servicePid) - serviceCpu0)) / seconds,
      unit: "% of a core",
    });
    r.figure({
      name: "WOLF child CPU during the load",
      value: (100 * (cpuSeconds(childPid) - childCpu0)) / seconds,
      unit: "% of a core",
    });
    r.figure({
      name: "agent service RSS after load, live WOLF child",
      value: rssMb(servicePid),
      unit: "MB",
      target: { op: "<=", value: 80 },
    });
    if (process.env.AGENT_TAIL_PROFILE) {
      // Where the memory is (prom-client loads with this first scrape, after the figures above).
      const text = await (await fetch(`${base}/metrics`)).text();
      for (const line of text.split("\n"))
        if (
          /^(nodejs_heap_space_size_(total|used)_bytes|nodejs_external_memory_bytes|nodejs_gc_duration_seconds_(sum|count)|process_resident_memory_bytes|nodejs_heap_size_(total|used)_bytes)/.test(
            line,
          )
        )
          console.log(line);
    }
  } finally {
    if (agent) await stop(agent.child);
    await stop(sim.child);
    rmSync(dir, { recursive: true, force: true });
  }
}
