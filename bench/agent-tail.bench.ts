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
 * service and of its trading child).
 *
 * The predecessor is not in this repository: started beside this bench with a live trading child
 * (docs/http-stack.md says how), its URL in PREDECESSOR_AGENT_URL makes the bench load its `/health`
 * the same way, alternating with ours, and print the ratio (goal ≥ 10×); PREDECESSOR_AGENT_PID adds
 * its RSS. Without the URL the ratio is not measured, and the bench says so.
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

interface Target {
  host: string;
  port: number;
}

interface Measured {
  rps: number;
  p99: number;
  errors: number;
}

/** `/health` at `connections` for DURATION_MS, after a warm-up. */
async function measure(target: Target, connections: number): Promise<Measured> {
  await runLoad({ ...target, path: "/health", connections, durationMs: 1_000 }); // warm-up
  return together(await inRounds(target, connections, 1));
}

async function inRounds(target: Target, connections: number, rounds: number) {
  const runs = [];
  for (let i = 0; i < rounds; i++)
    runs.push(await runLoad({ ...target, path: "/health", connections, durationMs: DURATION_MS }));
  return runs;
}

function together(runs: Awaited<ReturnType<typeof runLoad>>[]): Measured {
  const latencies = runs.flatMap((r) => Array.from(r.latenciesMs));
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  const seconds = runs.reduce((n, r) => n + r.elapsedMs, 0) / 1000;
  return {
    rps: requests / seconds,
    p99: percentile(latencies, 99),
    errors: runs.reduce((n, r) => n + r.errors, 0),
  };
}

/** Ours and the predecessor's `/health` at `connections`, alternating rounds so both meet the same machine. */
async function sideBySide(ours: Target, theirs: Target, connections: number, rounds: number) {
  await runLoad({ ...ours, path: "/health", connections, durationMs: 1_000 });
  await runLoad({ ...theirs, path: "/health", connections, durationMs: 1_000 });
  const a: Awaited<ReturnType<typeof runLoad>>[] = [];
  const b: Awaited<ReturnType<typeof runLoad>>[] = [];
  for (let i = 0; i < rounds; i++) {
    a.push(...(await inRounds(ours, connections, 1)));
    b.push(...(await inRounds(theirs, connections, 1)));
  }
  return { ours: together(a), theirs: together(b) };
}

function predecessorTarget(): Target | undefined {
  const raw = process.env.PREDECESSOR_AGENT_URL;
  if (!raw) return undefined;
  const url = new URL(raw);
  return { host: url.hostname, port: Number(url.port || 80) };
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
    const ours: Target = { host: "127.0.0.1", port: ports.agent };
    const predecessor = predecessorTarget();
    const one = await measure(ours, 1);
    r.figure({ name: "agent /health c=1, live WOLF: throughput", value: one.rps, unit: "req/s" });
    r.figure({
      name: "agent /health c=1, live WOLF: p99",
      value: one.p99,
      unit: "ms",
      target: { op: "<=", value: 1 },
    });
    const pair = predecessor ? await sideBySide(ours, predecessor, 32, 2) : undefined;
    const many = pair?.ours ?? (await measure(ours, 32));
    r.figure({ name: "agent /health c=32, live WOLF: throughput", value: many.rps, unit: "req/s" });
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
      name: "agent service CPU during the load (the predecessor's c=32 rounds in between, when measured)",
      value: (100 * (cpuSeconds(servicePid) - serviceCpu0)) / seconds,
      unit: "% of a core",
    });
    r.figure({
      name: "WOLF child CPU during the load",
      value: (100 * (cpuSeconds(childPid) - childCpu0)) / seconds,
      unit: "% of a core",
    });
    if (pair && predecessor) {
      const theirsOne = await measure(predecessor, 1);
      r.figure({ name: "predecessor /health c=1: p99", value: theirsOne.p99, unit: "ms" });
      r.figure({ name: "predecessor /health c=32: throughput", value: pair.theirs.rps, unit: "req/s" });
      r.figure({ name: "predecessor /health c=32: p99", value: pair.theirs.p99, unit: "ms" });
      r.figure({
        name: "predecessor /health: non-200 answers",
        value: theirsOne.errors + pair.theirs.errors,
        unit: "answers",
      });
      r.figure({
        name: "agent /health c=32 throughput over the predecessor's (same run, alternating rounds)",
        value: many.rps / pair.theirs.rps,
        unit: "×",
        target: { op: ">=", value: 10 },
      });
      const pid = Number(process.env.PREDECESSOR_AGENT_PID);
      if (pid > 0) r.figure({ name: "predecessor RSS after its load", value: rssMb(pid), unit: "MB" });
    } else {
      console.log(
        "agent /health c=32 over the predecessor: not measured (start the predecessor beside this bench and give PREDECESSOR_AGENT_URL; see docs/http-stack.md)",
      );
    }
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
