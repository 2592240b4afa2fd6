import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { backtestCommand } from "../src/backtest/backtest-command.ts";
import { loadHistory } from "../src/backtest/load-history.ts";
import { type BacktestOptions, runBacktest } from "../src/backtest/run-backtest.ts";
import { simHistory, simTape } from "../test/backtest/sim-history.ts";
import { writeSimStore } from "../test/backtest/write-sim-store.ts";
import type { BenchFn } from "./harness.ts";

/**
 * `hl backtest` speed. The time is this process's CPU time (one core: the run is single-threaded), so
 * the figures hold on a busy machine; the wall-clock time of the same run is printed beside it.
 * - momentum_breakout through the engine on a year of 1 m candles (the sim world's history model,
 *   525,600 candles, read from the market-data store beforehand), in-process, against Jesse's
 *   published ~183,000 one-minute candles/s;
 * - simple_mm on recorded-style trades and books (20 trades and 4 book snapshots a minute, derived
 *   from the sim candles, a week of them), events replayed per second;
 * - the whole command end to end on the year: read the Parquet store, run, write the HTML report.
 */
const JESSE_CANDLES_PER_S = 183_000;
const DAYS = 365;

async function timed<T>(f: () => Promise<T>): Promise<{ value: T; cpuS: number; wallS: number }> {
  const u0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await f();
  const cpu = process.cpuUsage(u0);
  return { value, cpuS: (cpu.user + cpu.system) / 1e6, wallS: (performance.now() - t0) / 1000 };
}

const bench: BenchFn = async (report) => {
  const root = mkdtempSync(join(tmpdir(), "bench-backtest-"));
  try {
    const endMs = Date.UTC(2026, 0, 1);
    const fromMs = endMs - DAYS * 86_400_000;
    await writeSimStore(root, { endMs, days: DAYS });
    // The history as `hl backtest` has it: read from the store (number columns), outside the timing.
    const history = await loadHistory({
      root,
      network: "paper",
      coin: "ETH",
      interval: "1m",
      fromMs,
      toMs: endMs,
    });
    const year: BacktestOptions = {
      strategy: "momentum_breakout",
      instrument: "ETH-PERP",
      fromMs,
      toMs: endMs,
      history,
      szDecimals: 4,
    };
    await runBacktest(year); // warm-up
    const r = await timed(() => runBacktest(year));
    const candles = r.value.summary.candles;
    report.figure({
      name: "backtest momentum_breakout, 1y of 1m candles (CPU, one core)",
      value: candles / r.cpuS,
      unit: "candles/s",
      target: { op: ">=", value: 500_000 },
      baseline: { name: "Jesse (published)", value: JESSE_CANDLES_PER_S },
    });
    report.figure({ name: "  same run, wall clock", value: candles / r.wallS, unit: "candles/s" });

    const mmEnd = Date.UTC(2026, 0, 31);
    // The target is measured on a week of tape (240k events). Two days (0.3 s of work, run first, as
    // this figure used to be) mostly measure V8 compiling the code: printed too, without a target.
    for (const days of [2, 7]) {
      const h = simHistory({ coin: "ETH", szDecimals: 4, endPx: 3400, endMs: mmEnd, days });
      const tape = simTape(h, { trades: 20, books: 4, tick: 0.1 });
      const mm: BacktestOptions = {
        strategy: "simple_mm",
        instrument: "ETH-PERP",
        fromMs: mmEnd - days * 86_400_000,
        toMs: mmEnd,
        history: { ...h, ...tape },
        szDecimals: 4,
      };
      await runBacktest(mm); // warm-up
      const m = await timed(() => runBacktest(mm));
      const events = tape.trades.length + tape.books.length;
      report.figure(
        days === 7
          ? {
              name: "backtest simple_mm on a week of trades and books (CPU, one core)",
              value: events / m.cpuS,
              unit: "events/s",
              target: { op: ">=", value: 200_000 },
            }
          : {
              name: "backtest simple_mm on two days, run first (no target: mostly compiling)",
              value: events / m.cpuS,
              unit: "events/s",
            },
      );
    }

    const e = await timed(() =>
      backtestCommand({
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
      }),
    );
    report.figure({
      name: "hl backtest end to end, 1y of 1m candles, report (CPU)",
      value: e.cpuS,
      unit: "s",
      target: { op: "<", value: 2 },
    });
    report.figure({ name: "  same run, wall clock", value: e.wallS, unit: "s" });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
};
export default bench;
