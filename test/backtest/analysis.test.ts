import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { breakdown, periodOf } from "../../src/backtest/breakdown.ts";
import { EXPORT_FILES, writeExports } from "../../src/backtest/export.ts";
import { formatLookahead, historyCutAt, lookaheadCheck } from "../../src/backtest/lookahead-check.ts";
import { cagr, calmar } from "../../src/backtest/metrics.ts";
import { MAX_FILLS_SHOWN, renderReportHtml } from "../../src/backtest/report-html.ts";
import { decodeParquet } from "../../src/market/parquet-codec.ts";
import { meanReversionRuns, simEthHistory } from "../support/sim-backtest.ts";

/** The analysis a quant expects next to the headline figures. */

const END = Date.UTC(2026, 2, 4);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const history = simEthHistory(END, 3);
const run = meanReversionRuns(history, END - 2 * DAY, END);

/** The default run, once for the tests that only read it. */
let shared: ReturnType<typeof run> | undefined;
const defaultRun = () => {
  shared ??= run();
  return shared;
};

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("backtest analysis", () => {
  it("breaks the run down by day, week and month; the periods add up to the run's equity change", async () => {
    const { summary, venue } = await defaultRun();
    const days = breakdown(venue.tape, summary.trades, 10_000, "day");
    expect(days.map((d) => d.period)).toEqual(["2026-03-02", "2026-03-03"]);
    const total = days.reduce((a, d) => a + Number(d.pnl_usd), 0);
    const last = venue.tape.pnl[venue.tape.pnl.length - 1]!;
    expect(total).toBeCloseTo(last, 1);
    expect(days.reduce((a, d) => a + d.trades, 0)).toBe(summary.trades.filter((t) => t.closed_ms).length);
    expect(breakdown(venue.tape, summary.trades, 10_000, "month").map((d) => d.period)).toEqual(["2026-03"]);
    // ISO weeks start on Monday: Sunday 2026-03-01 is in the week of Monday 2026-02-23.
    expect(periodOf(Date.UTC(2026, 2, 1, 12), "week")).toBe("2026-02-23");
    expect(periodOf(Date.UTC(2026, 2, 2), "week")).toBe("2026-03-02");
  });

  it("exports the fills and the equity curve as CSV and Parquet, with the booked values", async () => {
    const { ledger, venue } = await defaultRun();
    const dir = mkdtempSync(join(tmpdir(), "bt-export-"));
    dirs.push(dir);
    const paths = writeExports(dir, ledger.fills, venue.tape, 10_000);
    expect(paths.map((p) => p.slice(dir.length + 1))).toEqual([...EXPORT_FILES]);
    const csv = readFileSync(paths[0]!, "utf8").trim().split("\n");
    expect(csv[0]).toBe("time,side,price,size,fee,liquidity,id");
    expect(csv).toHaveLength(ledger.fills.length + 1);
    const f = ledger.fills[0]!;
    expect(csv[1]).toBe(
      `${new Date(f.time_ms).toISOString()},${f.side},${f.price},${f.size},${f.fee},${f.liquidity},${f.id}`,
    );
    const parquet = await decodeParquet(readFileSync(paths[1]!), [
      { name: "price", kind: "decimal" },
      { name: "fee", kind: "decimal" },
    ]);
    expect(parquet.rows).toBe(ledger.fills.length);
    expect(parquet.values.price?.[0]).toBe(f.price);
    expect(parquet.values.fee?.[0]).toBe(f.fee);
    const equity = readFileSync(paths[2]!, "utf8").trim().split("\n");
    expect(equity).toHaveLength(venue.tape.t.length + 1);
  });

  it("custom maker and taker fees replace the tier's", async () => {
    const { summary, ledger } = await run({ takerFee: "0.001", makerFee: "-0.0001" });
    expect(summary.taker_fee_rate).toBe("0.001");
    expect(summary.maker_fee_rate).toBe("-0.0001");
    const taker = ledger.fills.find((x) => x.liquidity === "taker")!;
    expect(Number(taker.fee)).toBeCloseTo(Number(taker.price) * Number(taker.size) * 0.001, 8);
    await expect(run({ takerFee: "lots" })).rejects.toThrow(/--taker-fee must be a fraction/);
  });

  it("CAGR needs 30 days, Calmar is CAGR over the drawdown; expectancy, duration, buy and hold, exits by reason", async () => {
    expect(cagr(10_000, 11_000, 365 * DAY)).toBeCloseTo(0.1, 12);
    expect(cagr(10_000, 11_000, 10 * DAY)).toBeNull();
    expect(calmar(0.2, 0.1)).toBeCloseTo(2, 12);
    expect(calmar(null, 0.1)).toBeNull();
    const { summary, venue } = await defaultRun();
    expect(summary.cagr_pct).toBeNull();
    const closed = summary.trades.filter((t) => t.closed_ms !== null);
    const mean = closed.reduce((a, t) => a + Number(t.net_pnl), 0) / closed.length;
    expect(Number(summary.expectancy_usd)).toBeCloseTo(mean, 6);
    expect(summary.avg_trade_duration_s).toBeGreaterThan(0);
    const bh = (venue.tape.close.at(-1)! / venue.tape.open[0]! - 1) * 100;
    expect(summary.buy_and_hold_return_pct).toBeCloseTo(bh, 5);
    // mean_reversion tags its exits: every closed trip has its reason.
    const reasons = Object.keys(summary.exits_by_reason);
    expect(reasons.length).toBeGreaterThan(0);
    expect(reasons).not.toContain("untagged");
    expect(Object.values(summary.exits_by_reason).reduce((a, b) => a + b, 0)).toBe(closed.length);
  });

  it("one drawdown definition: the starting capital is the first peak, in the summary and the report", async () => {
    const { summary, venue, ledger } = await defaultRun();
    const capital = 10_000;
    let peak = capital;
    let worst = 0;
    for (const p of venue.tape.pnl) {
      peak = Math.max(peak, capital + p);
      worst = Math.max(worst, peak - (capital + p));
    }
    expect(Number(summary.max_drawdown_usd)).toBeCloseTo(worst, 2);
    const html = renderReportHtml(summary, venue.tape, "", undefined, { fills: ledger.fills });
    const data = JSON.parse(html.slice(html.indexOf("const DATA = ") + 13, html.indexOf(";\nconst L"))) as {
      drawdown: { value: number }[];
      bars: { open: number; high: number; low: number; close: number }[];
      markers: unknown[];
    };
    const reportWorst = Math.min(...data.drawdown.map((d) => d.value));
    expect(reportWorst).toBeCloseTo(-summary.max_drawdown_pct, 3);
    // Real candles: wicks beyond the bodies.
    expect(
      data.bars.some((b) => b.high > Math.max(b.open, b.close) || b.low < Math.min(b.open, b.close)),
    ).toBe(true);
    expect(data.markers).toHaveLength(Math.min(ledger.fills.length, MAX_FILLS_SHOWN));
  });
});

describe("hl backtest --lookahead-check", () => {
  const opts = {
    strategy: "momentum_breakout",
    instrument: "ETH-PERP",
    params: { lookback: 10, breakout_threshold_bps: 2, volume_surge_mult: 1.2, size: 0.5 },
    fromMs: END - 6 * HOUR,
    toMs: END,
    history,
    szDecimals: 4,
    slippageBps: 0,
  };

  it("finds nothing on the engine's closed-candle snapshots, and reports a signal that saw what the cut data lacks", async () => {
    const honest = await lookaheadCheck(opts, 60_000, 4);
    expect(honest.signals).toBeGreaterThan(0);
    expect(honest.checked).toBe(Math.min(4, honest.signals));
    expect(honest.biased).toEqual([]);
    // A cut that takes away more than the future (the last closed candle too): signals change, and are reported.
    const leaky = await lookaheadCheck(opts, 60_000, 4, (h, at) => historyCutAt(h, at - 60_000, 60_000));
    expect(leaky.biased.length).toBeGreaterThan(0);
    expect(formatLookahead(leaky)[0]).toMatch(/signals re-run on data cut at their time: \d+ differ$/);
  });
});
