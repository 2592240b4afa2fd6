import { rmSync } from "node:fs";
import { getJson, type RunningUp, sleep, startUp, stopUp, until } from "../test/e2e/up-helpers.ts";
import type { BenchReporter } from "./harness.ts";

interface ScanStatus {
  scan?: { phase?: string; series_read?: number; series_total?: number };
}

interface WeightReport {
  limitPerMinute: number | null;
  addresses: { address: string; lastMinute: number; total: number; refused: number; since: number }[];
}

/**
 * `hl up` (the default `npm start`: WOLF, four house agents, leaderboard, feeds, ISFR, points, MCP)
 * behind one address, as it would run behind one IP live, with the sim world enforcing Hyperliquid's
 * 1200 weight a minute: the weight it spent over the last minute (steady state, after
 * IP_WEIGHT_BENCH_MIN minutes, default 6: long enough for the WOLF scans' candle refreshes) and over
 * the first minute, and the requests refused. Target: at most 1200 a minute, none refused.
 */
export default async function (r: BenchReporter): Promise<void> {
  const minutes = Number(process.env.IP_WEIGHT_BENCH_MIN) || 6;
  let up: RunningUp | undefined;
  try {
    // HL_WEIGHT_BROKER=off: each process keeps to its static share (to compare with the broker).
    const broker: Record<string, string> =
      process.env.HL_WEIGHT_BROKER === "off" ? { HL_WEIGHT_BROKER: "off" } : {};
    up = await startUp([], { HL_SIM_LIMITS: "on", ...broker });
    const sim = `${up.url("sim")}/sim/weight`;
    const loopback = async () =>
      (await getJson<WeightReport>(sim))?.addresses.find((a) => a.address === "127.0.0.1");
    await until(
      "the sim world",
      async () => (await getJson<WeightReport>(sim)) !== undefined,
      Date.now() + 60_000,
    );
    const t0 = Date.now();
    // WOLF's first scan: the candle series it has read, sampled as the run goes, and when it is ready.
    const agent = `${up.url("agent")}/api/status`;
    let readyAfterS: number | undefined;
    let readInFirstMinute = 0;
    const readByMinute: number[] = [];
    const sampleScan = async () => {
      const scan = (await getJson<ScanStatus>(agent))?.scan;
      if (scan?.phase === "ready" && readyAfterS === undefined) readyAfterS = (Date.now() - t0) / 1000;
      return scan?.series_read ?? 0;
    };
    while (Date.now() - t0 < 60_000) {
      await sleep(15_000);
      readInFirstMinute = await sampleScan();
    }
    const first = await loopback();
    r.figure({
      name: "hl up on one IP: weight in the first minute",
      value: first?.total ?? 0,
      unit: "weight",
    });
    let peak = first?.lastMinute ?? 0;
    while (Date.now() - t0 < minutes * 60_000) {
      await sleep(15_000);
      peak = Math.max(peak, (await loopback())?.lastMinute ?? 0);
      const read = await sampleScan();
      const minute = Math.floor((Date.now() - t0) / 60_000);
      if (minute >= 2) readByMinute[minute] ??= read;
    }
    r.figure({
      name: "hl up: WOLF first scan, candle series read in the first minute",
      value: readInFirstMinute,
      unit: "series",
    });
    for (const [minute, read] of readByMinute.entries())
      if (read !== undefined)
        r.figure({
          name: `hl up: WOLF first scan, candle series read after ${minute} minutes`,
          value: read,
          unit: "series",
        });
    r.figure({
      name: `hl up: WOLF first scan, candle series read after ${minutes} minutes (end)`,
      value: await sampleScan(),
      unit: "series",
    });
    r.figure({
      name: "hl up: WOLF first scan, seconds until ready",
      // NaN: not ready within the run.
      value: readyAfterS ?? Number.NaN,
      unit: "s",
    });
    const last = await loopback();
    const elapsedMin = (Date.now() - (last?.since ?? t0)) / 60_000;
    r.figure({
      name: "weight per minute under hl up on one IP (last minute)",
      value: last?.lastMinute ?? 0,
      unit: "weight/min",
      target: { op: "<=", value: 1200 },
    });
    r.figure({
      name: "weight per minute under hl up on one IP (busiest minute)",
      value: peak,
      unit: "weight/min",
      target: { op: "<=", value: 1200 },
    });
    r.figure({
      name: "weight per minute under hl up on one IP (mean)",
      value: (last?.total ?? 0) / elapsedMin,
      unit: "weight/min",
      target: { op: "<=", value: 1200 },
    });
    r.figure({
      name: "hl up on one IP: requests refused (429)",
      value: last?.refused ?? 0,
      unit: "requests",
      target: { op: "<=", value: 0 },
    });
  } finally {
    if (up) {
      await stopUp(up);
      rmSync(up.dataDir, { recursive: true, force: true });
    }
  }
}
