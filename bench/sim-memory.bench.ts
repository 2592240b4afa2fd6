import { readFileSync, rmSync } from "node:fs";
import { descendants, sleep, startUp, stopUp, until } from "../test/e2e/up-helpers.ts";
import type { BenchReporter } from "./harness.ts";
import { ensureBuilt, rssMb } from "./support/footprint.ts";

/**
 * Memory of the sim world as `hl up` runs it (its own `hl sim serve` child, the whole recorded
 * universe live), under the platform's own load (WOLF, the house agents, leaderboard, feeds, ISFR,
 * points) plus one client that reads every market's past (4h, 1h, 15m and 1m candles and funding)
 * again and again, as a scanner over the whole universe would. RSS is sampled every two seconds for
 * HL_BENCH_SIM_MEMORY_S seconds (default 60) after every service is healthy.
 */
const LOAD_S = Number(process.env.HL_BENCH_SIM_MEMORY_S ?? 60);
const HOUR = 3_600_000;

async function post(url: string, body: unknown): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  if (!res.ok) throw new Error(`${JSON.stringify(body)}: HTTP ${res.status}`);
  return res.json();
}

/** Every market's past, read once (or until `end`): returns how many requests it took. */
async function readEveryPast(info: string, now: number, end: number): Promise<number> {
  const [meta] = (await post(info, { type: "metaAndAssetCtxs" })) as [{ universe: { name: string }[] }];
  let n = 1;
  for (const { name: coin } of meta.universe) {
    if (Date.now() >= end) break;
    for (const [interval, lookback] of [
      ["4h", 50 * 4 * HOUR],
      ["1h", 48 * HOUR],
      ["15m", 12 * HOUR],
      ["1m", 30 * 24 * HOUR],
    ] as const) {
      await post(info, { type: "candleSnapshot", req: { coin, interval, startTime: now - lookback } });
      n++;
    }
    await post(info, { type: "fundingHistory", coin, startTime: now - 30 * 24 * HOUR });
    n++;
  }
  return n;
}

export default async function (r: BenchReporter): Promise<void> {
  ensureBuilt();
  const up = await startUp([], { HL_FROM_SOURCE: "0" });
  try {
    await until(
      "hl up ready",
      async () => up.output().includes("all services healthy"),
      Date.now() + 120_000,
    );
    const sim = descendants(up.child.pid!).find((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("sim\0serve");
      } catch {
        return false;
      }
    });
    if (sim === undefined) throw new Error("no sim child under hl up");
    const info = `${up.url("sim")}/info`;
    const end = Date.now() + LOAD_S * 1000;
    let peak = 0;
    let requests = 0;
    const reader = (async () => {
      while (Date.now() < end) requests += await readEveryPast(info, Date.now(), end);
    })();
    while (Date.now() < end) {
      peak = Math.max(peak, rssMb(sim));
      await sleep(2_000);
    }
    await reader;
    const last = rssMb(sim);
    peak = Math.max(peak, last);
    r.figure({
      name: `sim RSS under hl up, peak over ${LOAD_S} s of load (every past read)`,
      value: peak,
      unit: "MB",
      target: { op: "<=", value: 400 },
    });
    r.figure({ name: `sim RSS under hl up after ${LOAD_S} s of load`, value: last, unit: "MB" });
    r.figure({ name: "sim past reads served during the load", value: requests, unit: "requests" });
  } finally {
    await stopUp(up);
    rmSync(up.dataDir, { recursive: true, force: true });
  }
}
