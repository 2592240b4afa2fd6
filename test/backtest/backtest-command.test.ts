import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type BacktestCommandOptions,
  backtestCommand,
  loadInputs,
} from "../../src/backtest/backtest-command.ts";
import { runBacktest } from "../../src/backtest/run-backtest.ts";
import { UserError } from "../../src/core/errors.ts";
import { readCandles } from "../../src/market/index.ts";
import { writeSimStore } from "./write-sim-store.ts";

/** `hl backtest`'s logic on the market-data store, in-process: figures, report, reproducibility, bad input. */

const END = Date.UTC(2026, 0, 31);
let root = "";

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "bt-cmd-"));
  await writeSimStore(root, { endMs: END, days: 2 });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function opts(over: Partial<BacktestCommandOptions> = {}): BacktestCommandOptions {
  return {
    strategy: "momentum_breakout",
    instrument: "ETH-PERP",
    from: "2026-01-29",
    to: "2026-01-31",
    params: {},
    risk: {},
    feeTier: 0,
    latencyMs: 0,
    slippageBps: 0,
    interval: "1m",
    network: "paper",
    dataDir: root,
    ...over,
  };
}

describe("hl backtest (in-process)", () => {
  it("the same inputs give byte-identical figures and report", async () => {
    // A threshold this two-day path breaks out past (the default 50 bps never triggers on it).
    const params = { breakout_threshold_bps: 20 };
    const a = await backtestCommand(opts({ params, report: join(root, "a.html") }));
    const b = await backtestCommand(opts({ params, report: join(root, "b.html") }));
    expect(JSON.stringify(b.summary)).toBe(JSON.stringify(a.summary));
    expect(readFileSync(b.reportPath).equals(readFileSync(a.reportPath))).toBe(true);
    expect(a.summary.candles).toBe(2 * 1440);
    expect(a.summary.fills).toBeGreaterThan(0);
    // A param change changes the run.
    const c = await backtestCommand(
      opts({ params: { breakout_threshold_bps: 10 }, report: join(root, "c.html") }),
    );
    expect(c.summary.fills).not.toBe(a.summary.fills);
  }, 20_000);

  it("the store's number columns replay exactly as the decimal rows they hold", async () => {
    const { history, fromMs, toMs, szDecimals } = await loadInputs(opts());
    const rows = await readCandles({ root, network: "paper", coin: "ETH", interval: "1m", fromMs: 0, toMs });
    const base = { strategy: "simple_mm", instrument: "ETH-PERP", fromMs, toMs, szDecimals, latencyMs: 1500 };
    const fromColumns = await runBacktest({ ...base, history });
    const fromRows = await runBacktest({ ...base, history: { ...history, candles: rows } });
    expect(fromColumns.summary.fills).toBeGreaterThan(0);
    expect(fromColumns.summary.funding_usd).not.toBe("0");
    expect(JSON.stringify(fromColumns.summary)).toBe(JSON.stringify(fromRows.summary));
    expect(fromColumns.venue.lastClose()).toBe(rows.at(-1)?.c);
  });

  it("charges more fees on a lower fee tier and defaults the report under DATA_DIR/backtests", async () => {
    const t0 = await backtestCommand(opts({ strategy: "simple_mm", from: "2026-01-30T12:00:00Z" }));
    const t6 = await backtestCommand(
      opts({ strategy: "simple_mm", from: "2026-01-30T12:00:00Z", feeTier: 6 }),
    );
    expect(t0.reportPath).toBe(
      join(root, "backtests", "simple_mm_ETH-PERP_1m_2026-01-30T120000Z_2026-01-31T000000Z.html"),
    );
    expect(t0.summary.fills).toBeGreaterThan(10);
    expect(Number(t0.summary.fees_usd)).toBeGreaterThan(Number(t6.summary.fees_usd));
    expect(t6.summary.maker_fee_rate).toBe("0");
  }, 20_000);

  it.each([
    [{ from: "2026-01-31", to: "2026-01-30" }, /--from .* must be before --to/],
    [{ strategy: "no_such" }, /unknown strategy "no_such"/],
    [{ from: "2025-01-01", to: "2025-01-02" }, /no 1m candles for ETH on paper/],
    [{ interval: "2m" }, /--interval must be one of 1m, 5m, 1h/],
    [{ feeTier: 9 }, /--fee-tier must be an integer from 0 to 6/],
    [{ from: "yesterday" }, /--from must be a date/],
    [{ instrument: "not an instrument!" }, /not an instrument name/],
    [{ params: { nope: 1 } }, /momentum_breakout has no param nope/],
  ])("refuses %o with one readable line", async (over, message) => {
    const err = await backtestCommand(opts(over as Partial<BacktestCommandOptions>)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).not.toContain("\n");
  });
});
