import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchReporter } from "./harness.ts";
import { ensureBuilt } from "./support/footprint.ts";

/**
 * Start-up of the sim world with its 30-day past (candles, funding, volume, open interest of every
 * market), as `hl sim serve` runs it (compiled): from process start to its first `/info` answer
 * (metaAndAssetCtxs, what a client asks first: every market's 24 h volume and open interest), over a
 * few runs.
 */
const RUNS = 3;

async function firstAnswer(url: string): Promise<void> {
  const res = await fetch(new URL("/info", url), {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ type: "metaAndAssetCtxs" }),
  });
  if (!res.ok) throw new Error(`/info answered ${res.status}`);
  await res.json();
}

/** CPU time (user + system) a process has used so far: what its start costs on a busy machine too. */
function cpuTimeMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime are fields 14 and 15 of the whole line, in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function startOnce(): Promise<{ wallMs: number; cpuMs: number; backfillMs: number }> {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  const t0 = performance.now();
  const child = spawn(process.execPath, [join(root, "bin/hl.mjs"), "sim", "serve", "--port", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, DATA_DIR: "", HL_FROM_SOURCE: "0", HL_SIM_HISTORY_DAYS: "" },
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`sim server exited (${code})`)));
  });
  await firstAnswer(url);
  const wallMs = performance.now() - t0;
  const cpuMs = cpuTimeMs(child.pid!);
  child.kill("SIGTERM");
  await new Promise((r) => child.once("exit", r));
  // The same start without the backfill, to show what the past costs.
  const { startSimWorld } = await import("../src/sim/world.ts");
  const t1 = performance.now();
  const w = await startSimWorld({ port: 0, historyDays: 30 });
  const withPast = performance.now() - t1;
  await w.close();
  const t2 = performance.now();
  const w0 = await startSimWorld({ port: 0, historyDays: 0 });
  const without = performance.now() - t2;
  await w0.close();
  return { wallMs, cpuMs, backfillMs: withPast - without };
}

export default async function bench(r: BenchReporter): Promise<void> {
  ensureBuilt();
  const runs: { wallMs: number; cpuMs: number; backfillMs: number }[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await startOnce());
  const best = (k: "wallMs" | "cpuMs" | "backfillMs") => Math.min(...runs.map((x) => x[k]));
  r.figure({
    name: "sim start: `hl sim serve` to its first /info answer, 30-day past (best of 3)",
    value: Math.round(best("wallMs")),
    unit: "ms",
    target: { op: "<=", value: 3000 },
  });
  r.figure({
    name: "sim start: CPU time of `hl sim serve` to its first /info answer (best of 3)",
    value: Math.round(best("cpuMs")),
    unit: "ms",
  });
  r.figure({
    name: "sim start: of which the backfill, in-process (best of 3)",
    value: Math.round(best("backfillMs")),
    unit: "ms",
  });
}
