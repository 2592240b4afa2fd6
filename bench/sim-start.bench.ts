import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchReporter } from "./harness.ts";

/**
 * Start-up of the sim world with its 30-day backfill (candles, funding, volume, open interest of every
 * market), as `hl sim serve` does it: from process start to the "listening" line, over a few runs.
 */
const RUNS = 3;

async function startOnce(): Promise<{ wallMs: number; backfillMs: number }> {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  const t0 = performance.now();
  const child = spawn(process.execPath, [join(root, "bin/hl.mjs"), "sim", "serve", "--port", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, DATA_DIR: "" },
  });
  await new Promise<void>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("listening on")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`sim server exited (${code})`)));
  });
  const wallMs = performance.now() - t0;
  child.kill("SIGTERM");
  await new Promise((r) => child.once("exit", r));
  // The same start without the backfill, to show what the past costs.
  const { startSimWorld } = await import("../src/sim/world.ts");
  const t1 = performance.now();
  const w = await startSimWorld({ port: 0 });
  const withPast = performance.now() - t1;
  await w.close();
  const t2 = performance.now();
  const w0 = await startSimWorld({ port: 0, historyDays: 0 });
  const without = performance.now() - t2;
  await w0.close();
  return { wallMs, backfillMs: withPast - without };
}

export default async function bench(r: BenchReporter): Promise<void> {
  const runs: { wallMs: number; backfillMs: number }[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await startOnce());
  const best = (k: "wallMs" | "backfillMs") => Math.min(...runs.map((x) => x[k]));
  r.figure({
    name: "sim start: `hl sim serve` to listening, with the 30-day backfill (best of 3)",
    value: Math.round(best("wallMs")),
    unit: "ms",
    target: { op: "<=", value: 3000 },
  });
  r.figure({
    name: "sim start: of which the backfill, in-process (best of 3)",
    value: Math.round(best("backfillMs")),
    unit: "ms",
  });
}
