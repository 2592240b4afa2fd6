import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { portIsFree } from "../src/services/up/ports.ts";
import { cleanEnv, getJson, HL, sleep, until } from "../test/e2e/up-helpers.ts";
import { type BenchReporter, percentile } from "./harness.ts";
import { runLoad } from "./support/http-load.ts";

/**
 * The agent's status path against a live trading job, as deployed: `hl sim serve` and `hl agent
 * serve` (RUN_MODE=wolf, paper) each in their own process, the service supervising a real `hl wolf
 * run` that ticks every 2 s and holds open slots. Figures: /api/status and /status at c=32 (one
 * server process, one core; the load generator is a worker thread with its own framing), and the
 * trading child's restart after a kill -9 (kill to the new child's first state write).
 */
const CONNECTIONS = 32;
const DURATION_MS = 5_000;
const WOLF_TICK_S = 2;

async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 40_000);
    if (await portIsFree(port, "127.0.0.1")) return port;
  }
}

function startHl(args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [HL, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (b: Buffer) => {
    out += b.toString();
  });
  child.stderr!.on("data", (b: Buffer) => {
    out += b.toString();
  });
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

interface WolfStatus {
  status: string;
  tick_count?: number;
  active_slots?: unknown[];
}

interface Health {
  pid: number | null;
  alive: boolean;
}

async function statusLoad(r: BenchReporter, port: number, path: string, target: boolean): Promise<void> {
  await runLoad({ port, path, connections: CONNECTIONS, durationMs: 1_000 }); // warm-up
  const res = await runLoad({ port, path, connections: CONNECTIONS, durationMs: DURATION_MS });
  const latencies = Array.from(res.latenciesMs);
  r.figure({
    name: `agent ${path}, live WOLF: throughput (c=${CONNECTIONS})`,
    value: res.requests / (res.elapsedMs / 1000),
    unit: "req/s",
    ...(target ? { target: { op: ">=", value: 30_000 } as const } : {}),
  });
  r.figure({ name: `agent ${path}, live WOLF: p50`, value: percentile(latencies, 50), unit: "ms" });
  r.figure({
    name: `agent ${path}, live WOLF: p99`,
    value: percentile(latencies, 99),
    unit: "ms",
    ...(target ? { target: { op: "<", value: 5 } as const } : {}),
  });
  r.figure({
    name: `agent ${path}, live WOLF: non-200 answers`,
    value: res.errors,
    unit: "answers",
    target: { op: "<=", value: 0 },
  });
}

/** kill -9 the trading child; time until its successor has written the state file. */
async function restartAfterCrash(r: BenchReporter, base: string, statePath: string): Promise<void> {
  const samples: number[] = [];
  for (let round = 0; round < 3; round++) {
    const h = await until(
      "a running child",
      async () => {
        const health = await getJson<Health>(`${base}/health`);
        return health?.alive && health.pid ? health : undefined;
      },
      Date.now() + 60_000,
    );
    const killedAt = Date.now();
    process.kill(h.pid!, "SIGKILL");
    const deadline = performance.now() + 30_000;
    const t0 = performance.now();
    while (performance.now() < deadline) {
      if (statSync(statePath).mtimeMs > killedAt) break;
      await sleep(10);
    }
    samples.push(performance.now() - t0);
    await sleep(3_000); // the successor runs a while before the next round
  }
  r.figure({
    name: "trading child restart after kill -9 (to its first state write), median of 3",
    value: percentile(samples, 50),
    unit: "ms",
    target: { op: "<=", value: 1000 },
  });
}

export default async function (r: BenchReporter): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "hl-agent-live-"));
  const simPort = await freePort();
  const agentPort = await freePort();
  const env = { ...cleanEnv(), HL_AGENT_HOME: join(dir, "home") };
  const sim = startHl(["sim", "serve", "--port", String(simPort)], env);
  let agent: ReturnType<typeof startHl> | undefined;
  try {
    await until("sim world", async () => /listening on/.test(sim.output()) || undefined, Date.now() + 60_000);
    const wolfConfig = join(dir, "wolf-config.json");
    // The sim's markets trade less than the real ones: the volume floors `hl up` uses.
    writeFileSync(wolfConfig, JSON.stringify({ movers_min_volume_24h: 1000, scanner_min_volume_24h: 1000 }));
    agent = startHl(["agent", "serve"], {
      ...env,
      PORT: String(agentPort),
      HOST: "127.0.0.1",
      RUN_MODE: "wolf",
      HL_NETWORK: "paper",
      HL_API_URL: `http://127.0.0.1:${simPort}`,
      HL_PRIVATE_KEY: "",
      DATA_DIR: join(dir, "data"),
      WOLF_TICK: String(WOLF_TICK_S),
      WOLF_CONFIG: wolfConfig,
    });
    const base = `http://127.0.0.1:${agentPort}`;
    const live = await until(
      "open WOLF slots",
      async () => {
        const s = await getJson<WolfStatus>(`${base}/api/status`);
        return (s?.active_slots?.length ?? 0) >= 2 ? s : undefined;
      },
      Date.now() + 120_000,
    ).catch(async () => getJson<WolfStatus>(`${base}/api/status`));
    const body = JSON.stringify(live ?? {});
    r.figure({
      name: "live WOLF state: open slots (of 3)",
      value: live?.active_slots?.length ?? 0,
      unit: "slots",
    });
    r.figure({ name: "live WOLF /api/status body", value: Buffer.byteLength(body), unit: "bytes" });

    await statusLoad(r, agentPort, "/api/status", true);
    await statusLoad(r, agentPort, "/status", false);
    const after = await getJson<WolfStatus>(`${base}/api/status`);
    r.figure({
      name: "WOLF ticks during the load (the child kept running)",
      value: (after?.tick_count ?? 0) - (live?.tick_count ?? 0),
      unit: "ticks",
      target: { op: ">", value: 0 },
    });
    await restartAfterCrash(r, base, join(dir, "data", "wolf", "state.json"));
  } finally {
    if (agent) await stop(agent.child);
    await stop(sim.child);
    rmSync(dir, { recursive: true, force: true });
  }
}
