import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { startSimWorld } from "../src/sim/world.ts";
import {
  descendants,
  freeUpPorts,
  getJson,
  HL,
  sleep,
  startUp,
  stopUp,
  until,
} from "../test/e2e/up-helpers.ts";
import type { BenchReporter } from "./harness.ts";
import { ensureBuilt, median, ROOT, rssMb } from "./support/footprint.ts";

/**
 * What the platform costs to run: memory of the agent service and of the whole `hl up` tree, the
 * cold start of `hl --help`, and how fast `hl up` stops. Each figure runs the compiled code (dist/),
 * beside the same measurement of the previous design: the sources run through tsx (how everything
 * ran before the build), or for `hl up` each public service in its own process (`--split`).
 */
const SOURCES = { HL_FROM_SOURCE: "1" };
const COMPILED = { HL_FROM_SOURCE: "0" };

async function agentRestMb(env: Record<string, string>, simUrl: string): Promise<number> {
  const { agent: port } = await freeUpPorts();
  const dir = mkdtempSync(join(tmpdir(), "hl-footprint-agent-"));
  const child = spawn(
    process.execPath,
    [HL, "agent", "serve", "--port", String(port), "--host", "127.0.0.1"],
    {
      env: {
        ...process.env,
        ...env,
        RUN_MODE: "strategy",
        STRATEGY: "simple_mm",
        INSTRUMENT: "ETH-PERP",
        HL_NETWORK: "paper",
        HL_API_URL: simUrl,
        HL_PRIVATE_KEY: "",
        DATA_DIR: dir,
      },
      stdio: "ignore",
    },
  );
  try {
    const base = `http://127.0.0.1:${port}`;
    await until(
      "agent service",
      async () => (await getJson(`${base}/api/status`)) !== undefined,
      Date.now() + 60_000,
    );
    for (let i = 0; i < 50; i++) await getJson(`${base}/api/status`); // served, then left at rest
    await sleep(5_000);
    return rssMb(child.pid!);
  } finally {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Median wall time of `node args…` over 7 runs. */
function coldStartMs(args: string[], env: Record<string, string> = {}): number {
  const samples: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, args, {
      env: { ...process.env, ...env },
      stdio: "ignore",
    });
    if (r.status !== 0) throw new Error(`node ${args.join(" ")} failed`);
    samples.push(performance.now() - t0);
  }
  return median(samples);
}

/**
 * The `hl` launcher as installed (an image, a package): bin/ and dist/ without src/, so the launcher
 * has no sources to check for a stale build. `--help` reads only dist/help.txt.
 */
function installedCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), "hl-footprint-installed-"));
  for (const file of ["bin/hl.mjs", "dist/help.txt", "dist/BUILD_STAMP"]) {
    mkdirSync(join(dir, dirname(file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(dir, file));
  }
  return dir;
}

/** `hl up` started, every service healthy, left to run 20 s; the tree's RSS, then Ctrl-C to exit. */
async function upTree(
  env: Record<string, string>,
  args: string[] = [],
): Promise<{ rssMb: number; processes: number; stopS: number }> {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  const up = await startUp(args);
  Object.assign(process.env, saved);
  try {
    const deadline = Date.now() + 120_000;
    await until("hl up ready", async () => up.output().includes("all services healthy"), deadline);
    await sleep(20_000);
    const tree = [up.child.pid!, ...descendants(up.child.pid!)];
    const rss = tree.reduce((sum, pid) => sum + rssMb(pid), 0);
    const t0 = Date.now();
    await stopUp(up);
    return { rssMb: rss, processes: tree.length, stopS: (Date.now() - t0) / 1000 };
  } finally {
    await stopUp(up);
    rmSync(up.dataDir, { recursive: true, force: true });
  }
}

export default async function (r: BenchReporter): Promise<void> {
  ensureBuilt();

  // The floor on this machine right now: node itself, doing nothing.
  r.figure({ name: "node -e 0 cold start (the floor)", value: coldStartMs(["-e", "0"]), unit: "ms" });
  const tsxHelp = coldStartMs([HL, "--help"], SOURCES);
  r.figure({
    name: "hl --help cold start (checkout: scans src/ for a stale build)",
    value: coldStartMs([HL, "--help"], COMPILED),
    unit: "ms",
    target: { op: "<=", value: 150 },
    baseline: { name: "sources via tsx", value: tsxHelp },
  });
  const installed = installedCopy();
  try {
    r.figure({
      name: "hl --help cold start (installed: no src/ to scan)",
      value: coldStartMs([join(installed, "bin/hl.mjs"), "--help"], COMPILED),
      unit: "ms",
      target: { op: "<=", value: 150 },
    });
  } finally {
    rmSync(installed, { recursive: true, force: true });
  }

  // The per-IP weight limit is off: it loads the platform harder than one IP's 1200 weight a minute allows.
  const sim = await startSimWorld({ ipWeightLimit: false, seed: 1 });
  try {
    const tsxAgent = await agentRestMb(SOURCES, sim.url);
    r.figure({
      name: "agent service RSS at rest",
      value: await agentRestMb(COMPILED, sim.url),
      unit: "MB",
      target: { op: "<=", value: 60 },
      baseline: { name: "sources via tsx", value: tsxAgent },
    });
  } finally {
    await sim.close();
  }

  // The public services in one shared process (the default) beside one process each (--split).
  const split = await upTree(COMPILED, ["--split"]);
  const up = await upTree(COMPILED);
  r.figure({
    name: `hl up whole tree RSS (${up.processes} processes)`,
    value: up.rssMb,
    unit: "MB",
    target: { op: "<=", value: 700 },
    baseline: { name: `hl up --split, ${split.processes} processes`, value: split.rssMb },
  });
  r.figure({
    name: "hl up shutdown (Ctrl-C to exit)",
    value: up.stopS,
    unit: "s",
    target: { op: "<", value: 1 },
    baseline: { name: "hl up --split", value: split.stopS },
  });
}
