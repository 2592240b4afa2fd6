import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BacktestSummary } from "../../src/backtest/summary.ts";
import { type HlOutcome, runHl } from "../support/hl-process.ts";

/** `hl sim export` → `hl backtest` → figures and report, as real processes, for a signal strategy and a market maker. */

let dir = "";

function hl(...args: string[]): Promise<HlOutcome> {
  return runHl(args, { ...process.env, DATA_DIR: dir, HL_NETWORK: "" }, 60_000);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "bt-e2e-"));
  const r = await hl("sim", "export", "--days", "2", "--coins", "ETH", "--to", "2026-01-31");
  expect(r.code, r.stderr).toBe(0);
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("hl backtest on `hl sim export` data", () => {
  it("momentum_breakout: --json figures, byte-identical on a second run, and the HTML report", {
    timeout: 120_000,
  }, async () => {
    const args = [
      "backtest",
      "momentum_breakout",
      "-i",
      "ETH-PERP",
      "--from",
      "2026-01-29",
      "--to",
      "2026-01-31",
      "-p",
      "breakout_threshold_bps=20",
      // At-touch IOCs: with any slippage the slipped open passes the limit and nothing fills.
      "--slippage-bps",
      "0",
      "--json",
    ];
    const a = await hl(...args);
    expect(a.code, a.stderr).toBe(0);
    const b = await hl(...args);
    expect(b.stdout).toBe(a.stdout);
    const s = JSON.parse(a.stdout) as BacktestSummary & { report: string };
    expect(s).toMatchObject({ strategy: "momentum_breakout", instrument: "ETH-PERP", candles: 2880 });
    expect(s.params.breakout_threshold_bps).toBe(20);
    expect(s.fills).toBeGreaterThan(0);
    expect(s.trades.length).toBeGreaterThan(0);
    expect(s.report).toBe(
      join(dir, "backtests", "momentum_breakout_ETH-PERP_1m_2026-01-29T000000Z_2026-01-31T000000Z.html"),
    );
    const html = readFileSync(s.report, "utf8");
    expect(html).toContain("createChart");
    expect(html).not.toMatch(/<script src=/);
  });

  it("simple_mm: the text summary and a report at --report", { timeout: 60_000 }, async () => {
    const report = join(dir, "mm.html");
    const r = await hl(
      "backtest",
      "simple_mm",
      "-i",
      "ETH-PERP",
      "--from",
      "2026-01-30T12:00:00Z",
      "--to",
      "2026-01-31",
      "--fee-tier",
      "3",
      "--latency-ms",
      "250",
      "--report",
      report,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Backtest: simple_mm on ETH-PERP/m);
    expect(r.stdout).toMatch(
      /^Costs: fee tier 3 \(maker 0.00004, taker 0.0003\), slippage 1 bps, latency 250 ms, at most 10% of a candle.s volume$/m,
    );
    expect(r.stdout).toMatch(/^Fees: [0-9.]+ USD {2}Funding: -?[0-9.]+ USD {2}Fills: [1-9]\d*/m);
    expect(existsSync(report)).toBe(true);
  });

  it("bad input: one readable line, non-zero exit", { timeout: 60_000 }, async () => {
    const r = await hl("backtest", "simple_mm", "--from", "2025-01-01", "--to", "2025-01-02");
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/no 1m candles for ETH on paper/);
  });
});
