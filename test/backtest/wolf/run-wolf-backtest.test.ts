import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runWolfBacktest } from "../../../src/backtest/wolf/run-wolf-backtest.ts";
import { loadUniverse, type UniverseHistory } from "../../../src/backtest/wolf/universe.ts";
import { formatWolfSummary } from "../../../src/backtest/wolf/wolf-backtest-command.ts";
import { exportSimHistory } from "../../../src/market/sim-export.ts";
import { buildWolfConfig } from "../../../src/wolf/config.ts";

/** WolfRunner over the sim world's history, in-process: the protective path between ticks, cancellation. */

const END = Date.parse("2026-01-31T00:00:00Z");
const FROM = END - 6 * 3_600_000;
let root = "";
let universe: UniverseHistory;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "wolf-run-"));
  await exportSimHistory({ root, days: 2, coins: ["BTC", "ETH", "SOL", "HYPE"], endMs: END });
  universe = await loadUniverse({ root, network: "paper", interval: "1m", fromMs: FROM, toMs: END });
}, 30_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("runWolfBacktest", () => {
  it("enters on the movers' signals, and acts on every close between ticks: a stop fills off the tick grid", async () => {
    // Scanner held back, so every entry is the movers'; a tick every other candle.
    const config = buildWolfConfig(
      "default",
      { tickSeconds: 120 },
      { daily_loss_limit: 1000, movers_confidence_threshold: 40, scanner_score_threshold: 1000 },
    );
    const log: string[] = [];
    const { summary } = await runWolfBacktest({
      preset: "default",
      config,
      universe,
      fromMs: FROM,
      toMs: END,
      log: (l) => log.push(l),
    });
    expect(summary.candles).toBe(360);
    expect(summary.ticks).toBe(180);
    expect(Object.keys(summary.entries_by_source)).toEqual(["movers_signal"]);
    // The scans ran on every tick without failing (a failing scan is logged and skipped).
    expect(log.filter((l) => /fail/i.test(l))).toEqual([]);
    const closed = summary.trades.filter((t) => t.closed_ms !== null);
    expect(closed.length).toBeGreaterThan(0);
    // Entries come from ticks; at least one exit was decided on a close in between.
    for (const t of summary.trades) expect((t.opened_ms - FROM) % 120_000).toBe(0);
    expect(closed.some((t) => (t.closed_ms! - FROM) % 120_000 !== 0)).toBe(true);
    // The text form carries the same figures.
    const text = formatWolfSummary(summary, "r.html");
    expect(text[0]).toBe(
      "WOLF backtest (default) on BTC, ETH, HYPE, SOL, 2026-01-30T18:00:00.000Z → 2026-01-31T00:00:00.000Z (360 × 1m, 180 ticks)",
    );
    expect(text).toContain(`PnL: ${summary.pnl_usd} USD (${summary.return_pct}% of 10000)`);
    expect(text.find((l) => l.startsWith("Exits: "))).toMatch(/^Exits: ([a-z_]+ \d+(, )?)+$/);
    // The runner's files stayed in its scratch directory.
    expect(existsSync(join(root, "wolf"))).toBe(false);
  });

  it("stops when its signal aborts", async () => {
    const config = buildWolfConfig("default", {});
    const ac = new AbortController();
    let seen = 0;
    await expect(
      runWolfBacktest({
        preset: "default",
        config,
        universe,
        fromMs: FROM,
        toMs: END,
        signal: ac.signal,
        onProgress: (done) => {
          seen = done;
          if (done === 10) ac.abort();
        },
      }),
    ).rejects.toThrow("backtest cancelled");
    expect(seen).toBe(10);
  });
});
