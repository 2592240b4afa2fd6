import { describe, expect, it } from "vitest";
import type { ReplayTape } from "../../../src/backtest/replay-venue.ts";
import { chartData, renderReportHtml } from "../../../src/backtest/report-html.ts";
import { type BacktestSummary, untouchedRisk } from "../../../src/backtest/summary.ts";
import type { WolfTrade } from "../../../src/backtest/wolf/wolf-summary.ts";

/** The report page over several coins: the chart coin's trades marked, every trade listed with its coin. */

const T0 = Date.parse("2026-01-30T00:00:00Z");
const tape: ReplayTape = {
  t: [T0, T0 + 60_000, T0 + 120_000],
  open: [100, 100, 101],
  high: [100.5, 101.5, 102.5],
  low: [99.5, 99.8, 100.9],
  close: [100, 101, 102],
  pnl: [0, 5, -3],
  qty: [1, 2, 0],
};
const trade = (coin: string, opened: number): WolfTrade => ({
  coin,
  side: "long",
  opened_ms: opened,
  closed_ms: opened + 60_000,
  size: "1",
  entry_px: "100",
  exit_px: "101",
  pnl: "1",
  fees: "0.1",
  funding: "0",
  net_pnl: "0.9",
  exit_reason: null,
});
const summary = {
  strategy: "wolf",
  instrument: "2 coins",
  interval: "1m",
  from: "2026-01-30T00:00:00.000Z",
  to: "2026-01-30T00:03:00.000Z",
  requested_from: "2026-01-30T00:00:00.000Z",
  requested_to: "2026-01-30T00:03:00.000Z",
  params: { max_slots: 3 },
  fee_tier: 0,
  maker_fee_rate: "0.00015",
  taker_fee_rate: "0.00045",
  latency_ms: 0,
  slippage_bps: 1,
  participation_pct: 10,
  candles: 3,
  capital_usd: "10000",
  pnl_usd: "1.8",
  return_pct: 0.018,
  sharpe: null,
  sortino: null,
  daily_returns: 1,
  cagr_pct: null,
  calmar: null,
  max_drawdown_usd: "8",
  max_drawdown_pct: 0.08,
  max_drawdown_duration_s: 60,
  win_rate: 1,
  profit_factor: null,
  expectancy_usd: "0.9",
  avg_trade_duration_s: 60,
  exposure_pct: 66.666667,
  buy_and_hold_return_pct: 2,
  fees_usd: "0.2",
  funding_usd: "0",
  fills: 4,
  orders_placed: 4,
  orders_rejected: 0,
  stop_reason: "end of data",
  exits_by_reason: {},
  risk: untouchedRisk(),
  open_position: null,
  data_gaps: [],
  warnings: [],
  trades: [trade("BTC", T0), trade("ETH", T0 + 60_000)],
} satisfies BacktestSummary;

describe("the report over several coins", () => {
  it("marks only the chart coin's trades on its price", () => {
    const chart = { chartCoin: "BTC", title: "WOLF (default)" };
    // An open arrow and a close circle for the BTC trade only.
    expect(chartData(summary, tape, chart).markers.map((m) => m.time)).toEqual([T0 / 1000, T0 / 1000 + 60]);
    expect(chartData(summary, tape).markers).toHaveLength(4);
  });

  it("lists every trade with its coin, under the chart coin's title", () => {
    const html = renderReportHtml(summary, tape, "", { chartCoin: "BTC", title: "WOLF (default)" });
    expect(html).toContain("<h1>WOLF (default) on 2 coins</h1>");
    expect(html).toContain("<h2>BTC price and its trades</h2>");
    expect(html).toContain("<th>coin</th><th>side</th>");
    expect(html).toContain("<tr><td>BTC</td><td>long</td>");
    expect(html).toContain("<tr><td>ETH</td><td>long</td>");
    // A single-instrument report is unchanged: no coin column.
    const plain = renderReportHtml({ ...summary, trades: [] }, tape, "");
    expect(plain).not.toContain("<th>coin</th>");
    expect(plain).toContain("<h2>Price and trades</h2>");
  });
});
