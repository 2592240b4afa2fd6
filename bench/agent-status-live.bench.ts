import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { HEALTHY_AFTER_MS } from "../src/services/agent/supervisor.ts";
import { portIsFree } from "../src/services/up/ports.ts";
import { cleanEnv, getJson, HL, sleep, until } from "../test/e2e/up-helpers.ts";
import { type BenchReporter, percentile } from "./harness.ts";
import { runLoad } from "./support/http-load.ts";

/**
 * The agent's status path against a live trading job, as deployed: `hl sim serve` and `hl agent
 * serve` (RUN_MODE=wolf, paper) each in their own process, the service supervising a real `hl wolf
 * run` that ticks every 2 s and holds open slots. Figures: /api/status and /status at c=32 (one
 * server process, one core; the load generator is a worker thread with its own framing), each beside
 * bare node:http serving the same bytes (the ceiling of this machine at that moment), and the trading
 * child's restart after a kill -9.
 */
const CONNECTIONS = 32;
const DURATION_MS = 5_000;
const WOLF_TICK_S = 2;
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

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

interface LoadFigures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function measure(port: number, path: string): Promise<LoadFigures> {
  await runLoad({ port, path, connections: CONNECTIONS, durationMs: 1_000 }); // warm-up
  const res = await runLoad({ port, path, connections: CONNECTIONS, durationMs: DURATION_MS });
  const latencies = Array.from(res.latenciesMs);
  return {
    rps: res.requests / (res.elapsedMs / 1000),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors: res.errors,
  };
}

/** The path's load figures, each beside bare node:http serving the same bytes on this machine now. */
async function statusLoad(
  r: BenchReporter,
  port: number,
  path: string,
  bare: LoadFigures,
  target: boolean,
): Promise<void> {
  const m = await measure(port, path);
  const baseline = (value: number) => ({ name: "bare node:http, same bytes", value });
  r.figure({
    name: `agent ${path}, live WOLF: throughput (c=${CONNECTIONS})`,
    value: m.rps,
    unit: "req/s",
    baseline: baseline(bare.rps),
    ...(target ? { target: { op: ">=", value: 30_000 } as const } : {}),
  });
  r.figure({ name: `agent ${path}, live WOLF: p50`, value: m.p50, unit: "ms", baseline: baseline(bare.p50) });
  r.figure({
    name: `agent ${path}, live WOLF: p99`,
    value: m.p99,
    unit: "ms",
    baseline: baseline(bare.p99),
    ...(target ? { target: { op: "<", value: 5 } as const } : {}),
  });
  r.figure({
    name: `agent ${path}, live WOLF: non-200 answers`,
    value: m.errors,
    unit: "answers",
    target: { op: "<=", value: 0 },
  });
}

/** bin/run-ts.mjs bench/support/bytes-server.ts answering `path` with `body`. */
async function bareServer(
  dir: string,
  bodies: Record<string, Buffer>,
): Promise<{ child: ChildProcess; port: number }> {
  const manifest: Record<string, string> = {};
  for (const [path, body] of Object.entries(bodies)) {
    const file = join(dir, `bare-${path.replace(/\W+/g, "-")}.bin`);
    writeFileSync(file, body);
    manifest[`${path} identity`] = file;
  }
  writeFileSync(join(dir, "bare-manifest.json"), JSON.stringify(manifest));
  const child = spawn(
    process.execPath,
    [join(ROOT, "bin/run-ts.mjs"), join(ROOT, "bench/support/bytes-server.ts")],
    {
      env: { ...process.env, MANIFEST: join(dir, "bare-manifest.json") },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve(out.split("\n")[0]!);
    });
    child.once("exit", (code) => reject(new Error(`bytes-server exited (${code})`)));
  });
  return { child, port: (JSON.parse(line) as { port: number }).port };
}

/**
 * kill -9 the trading child, three times, each an isolated crash (the child had lived past the
 * supervisor's healthy period, so no crash-loop back-off applies): time until the supervisor has a
 * new child (its pid in /health), and until that child has written the state file (it is up,
 * reconciled with the exchange and its open slots guarded; the rest is the child's own start-up).
 */
async function restartAfterCrash(
  r: BenchReporter,
  base: string,
  statePath: string,
  childStartedAt: number,
): Promise<void> {
  const respawn: number[] = [];
  const firstWrite: number[] = [];
  await sleep(childStartedAt + HEALTHY_AFTER_MS + 1_000 - Date.now());
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
    const t0 = performance.now();
    process.kill(h.pid!, "SIGKILL");
    const deadline = t0 + 30_000;
    let respawned = 0;
    while (performance.now() < deadline) {
      if (respawned === 0) {
        const now = await getJson<Health>(`${base}/health`);
        if (now?.pid && now.pid !== h.pid) respawned = performance.now() - t0;
      }
      if (statSync(statePath).mtimeMs > killedAt) break;
      await sleep(5);
    }
    respawn.push(respawned || Number.NaN);
    firstWrite.push(performance.now() - t0);
    // The successor lives past the healthy period: the next kill is an isolated crash again.
    if (round < 2) await sleep(HEALTHY_AFTER_MS + 1_000);
  }
  r.figure({
    name: "trading child isolated crash (kill -9) to its successor spawned, median of 3",
    value: percentile(respawn, 50),
    unit: "ms",
  });
  r.figure({
    name: "trading child isolated crash (kill -9) to its successor's first state write, median of 3",
    value: percentile(firstWrite, 50),
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
    const agentStartedAt = Date.now();
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

    const fetchBytes = async (path: string) =>
      Buffer.from(await (await fetch(`${base}${path}`)).arrayBuffer());
    const bare = await bareServer(dir, {
      "/api/status": await fetchBytes("/api/status"),
      "/status": await fetchBytes("/status"),
    });
    try {
      for (const [path, target] of [
        ["/api/status", true],
        ["/status", false],
      ] as const) {
        const bareFigures = await measure(bare.port, path);
        await statusLoad(r, agentPort, path, bareFigures, target);
      }
    } finally {
      await stop(bare.child);
    }
    const after = await getJson<WolfStatus>(`${base}/api/status`);
    r.figure({
      name: "WOLF ticks during the load (the child kept running)",
      value: (after?.tick_count ?? 0) - (live?.tick_count ?? 0),
      unit: "ticks",
      target: { op: ">", value: 0 },
    });
    await restartAfterCrash(r, base, join(dir, "data", "wolf", "state.json"), agentStartedAt);
  } finally {
    if (agent) await stop(agent.child);
    await stop(sim.child);
    rmSync(dir, { recursive: true, force: true });
  }
}
