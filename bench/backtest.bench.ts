import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { backtestCommand } from "../src/backtest/backtest-command.ts";
import { runBacktest } from "../src/backtest/run-backtest.ts";
import { writeSimStore } from "../test/backtest/write-sim-store.ts";
import type { BenchFn } from "./harness.ts";

/**
 * `hl backtest` speed on a year of 1 m candles (the sim world's history model, 525,600 candles):
 * - replay speed of momentum_breakout through the engine, in-process, against Jesse's published
 *   ~183,000 one-minute candles/s;
 * - the whole command end to end: read the Parquet store, run, write the HTML report.
 */
const JESSE_CANDLES_PER_S = 183_000;
const DAYS = 365;

const bench: BenchFn = async (report) => {
  const root = mkdtempSync(join(tmpdir(), "bench-backtest-"));
  try {
    const endMs = Date.UTC(2026, 0, 1);
    const fromMs = endMs - DAYS * 86_400_000;
    const history = await writeSimStore(root, { endMs, days: DAYS });
    const run = () =>
      runBacktest({
        strategy: "momentum_breakout",
        instrument: "ETH-PERP",
        fromMs,
        toMs: endMs,
        history,
        szDecimals: 4,
      });
    await run(); // warm-up
    const t0 = performance.now();
    const r = await run();
    const s = (performance.now() - t0) / 1000;
    report.figure({
      name: "backtest momentum_breakout, 1y of 1m candles, one core",
      value: r.summary.candles / s,
      unit: "candles/s",
      target: { op: ">=", value: 500_000 },
      baseline: { name: "Jesse (published)", value: JESSE_CANDLES_PER_S },
    });
    const t1 = performance.now();
    await backtestCommand({
      strategy: "momentum_breakout",
      instrument: "ETH-PERP",
      from: String(fromMs),
      to: String(endMs),
      params: {},
      risk: {},
      feeTier: 0,
      latencyMs: 0,
      slippageBps: 1,
      interval: "1m",
      network: "paper",
      dataDir: root,
      report: join(root, "report.html"),
    });
    report.figure({
      name: "hl backtest end to end, 1y of 1m candles, report included",
      value: (performance.now() - t1) / 1000,
      unit: "s",
      target: { op: "<", value: 2 },
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
};
export default bench;
