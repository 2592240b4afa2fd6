import type { BreakdownRow } from "./breakdown.ts";
import type { LedgerFill } from "./ledger.ts";
import type { ReplayTape } from "./replay-venue.ts";
import { type BacktestSummary, ratioNotGiven } from "./summary.ts";

/** Bars drawn at most: longer runs are drawn as coarser candles (the figures use every candle). */
const MAX_BARS = 2000;
/** Round trips drawn on the price chart and listed in the table, at most. */
const MAX_TRADES_SHOWN = 500;
/** Fills marked on the price chart, at most. */
export const MAX_FILLS_SHOWN = 1000;

/** What a single-instrument report adds: its fills on the chart and the period breakdown. */
interface ReportExtras {
  fills?: readonly LedgerFill[];
  breakdown?: readonly BreakdownRow[];
}

/** A report over several coins (WOLF): whose price is drawn, and the report's title. */
interface ReportChart {
  /** Only this coin's trades are marked on the price chart (trades carrying a `coin`). */
  chartCoin: string;
  title: string;
}

type ReportTrade = BacktestSummary["trades"][number] & { coin?: string };

interface ChartData {
  bars: { time: number; open: number; high: number; low: number; close: number }[];
  equity: { time: number; value: number }[];
  /** The starting capital held in the instrument (the benchmark line). */
  hold: { time: number; value: number }[];
  drawdown: { time: number; value: number }[];
  markers: { time: number; position: string; color: string; shape: string; text: string }[];
}

/** The tape in at most MAX_BARS buckets: the candles' OHLC, equity, buy and hold, and drawdown at each bucket's end. */
export function chartData(
  summary: BacktestSummary,
  tape: ReplayTape,
  chart?: ReportChart,
  fills?: readonly LedgerFill[],
): ChartData {
  const n = tape.t.length;
  const per = Math.max(1, Math.ceil(n / MAX_BARS));
  const capital = Number(summary.capital_usd);
  const bars: ChartData["bars"] = [];
  const equity: ChartData["equity"] = [];
  const hold: ChartData["hold"] = [];
  const drawdown: ChartData["drawdown"] = [];
  const firstOpen = n > 0 ? tape.open[0]! : 0;
  // The summary's definition: the starting capital is the first peak.
  let peak = capital;
  let maxDd = 0;
  for (let start = 0; start < n; start += per) {
    const end = Math.min(n, start + per);
    let high = -Infinity;
    let low = Infinity;
    for (let i = start; i < end; i++) {
      const e = capital + tape.pnl[i]!;
      if (e > peak) peak = e;
      const dd = peak > 0 ? (e - peak) / peak : 0;
      if (dd < maxDd) maxDd = dd;
      high = Math.max(high, tape.high[i]!);
      low = Math.min(low, tape.low[i]!);
    }
    const time = Math.floor(tape.t[start]! / 1000);
    bars.push({ time, open: tape.open[start]!, high, low, close: tape.close[end - 1]! });
    const last = capital + tape.pnl[end - 1]!;
    equity.push({ time, value: round2(last) });
    if (firstOpen > 0) hold.push({ time, value: round2((capital * tape.close[end - 1]!) / firstOpen) });
    // The bucket's worst drawdown, so a dip inside it is not hidden by the coarser bars.
    drawdown.push({ time, value: round4(maxDd * 100) });
    maxDd = 0;
  }
  const bucketMs = per * (n > 1 ? tape.t[1]! - tape.t[0]! : 60_000);
  const first = n > 0 ? tape.t[0]! : 0;
  const snap = (ms: number) => Math.floor((first + Math.floor((ms - first) / bucketMs) * bucketMs) / 1000);
  const markers: ChartData["markers"] = [];
  // Every fill where they are known (buys below the bar, sells above), else each trade's open and close.
  for (const f of (fills ?? []).slice(0, MAX_FILLS_SHOWN)) {
    const buy = f.side === "buy";
    markers.push({
      time: snap(f.time_ms),
      position: buy ? "belowBar" : "aboveBar",
      color: buy ? "#1a7f37" : "#cf222e",
      shape: buy ? "arrowUp" : "arrowDown",
      text: `${buy ? "B" : "S"} ${f.size} @ ${f.price}`,
    });
  }
  for (const t of fills ? [] : (summary.trades as ReportTrade[]).slice(0, MAX_TRADES_SHOWN)) {
    if (chart && t.coin !== undefined && t.coin !== chart.chartCoin) continue;
    const long = t.side === "long";
    markers.push({
      time: snap(t.opened_ms),
      position: long ? "belowBar" : "aboveBar",
      color: long ? "#1a7f37" : "#cf222e",
      shape: long ? "arrowUp" : "arrowDown",
      text: `${long ? "L" : "S"} ${t.size}`,
    });
    if (t.closed_ms !== null)
      markers.push({
        time: snap(t.closed_ms),
        position: long ? "aboveBar" : "belowBar",
        color: "#57606a",
        shape: "circle",
        text: "",
      });
  }
  markers.sort((a, b) => a.time - b.time);
  return { bars, equity, hold, drawdown, markers };
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON safe inside a <script> element. */
function scriptJson(v: unknown): string {
  return JSON.stringify(v).replace(/</g, "\\u003c");
}

function fmt(v: number | string | null): string {
  return v === null ? "—" : String(v);
}

/**
 * The backtest report as one self-contained HTML file: the figures, the equity curve, the drawdown
 * and the trades on the price chart (lightweight-charts, inlined so the file opens offline), and
 * the trade list. Pure: the same summary and tape give the same bytes.
 */
export function renderReportHtml(
  summary: BacktestSummary,
  tape: ReplayTape,
  chartsScript: string,
  chart?: ReportChart,
  extras: ReportExtras = {},
): string {
  const data = chartData(summary, tape, chart, extras.fills);
  const periods = extras.breakdown ?? [];
  const breakdownTable =
    periods.length === 0
      ? ""
      : `<h2>By period</h2>
<table><thead><tr><th>period</th><th>PnL (USD)</th><th>return</th><th>trades closed</th><th>won</th></tr></thead>
<tbody>
${periods.map((r) => `<tr><td>${esc(r.period)}</td><td>${esc(r.pnl_usd)}</td><td>${r.return_pct}%</td><td>${r.trades}</td><td>${r.wins}</td></tr>`).join("\n")}
</tbody></table>`;
  const s = summary;
  const figures: [string, string][] = [
    ["PnL (USD)", s.pnl_usd],
    ["Return", `${s.return_pct}%`],
    ["Buy and hold", s.buy_and_hold_return_pct === null ? "—" : `${s.buy_and_hold_return_pct}%`],
    ["CAGR", s.cagr_pct === null ? "n/a (under 30 days)" : `${s.cagr_pct}%`],
    ["Calmar", fmt(s.calmar)],
    ["Sharpe", s.sharpe === null ? ratioNotGiven(s.daily_returns) : String(s.sharpe)],
    ["Sortino", s.sortino === null ? ratioNotGiven(s.daily_returns) : String(s.sortino)],
    ["Max drawdown", `${s.max_drawdown_usd} USD (${s.max_drawdown_pct}%)`],
    ["Drawdown duration", `${(s.max_drawdown_duration_s / 3600).toFixed(2)} h`],
    ["Win rate", s.win_rate === null ? "—" : `${(s.win_rate * 100).toFixed(2)}%`],
    ["Profit factor", fmt(s.profit_factor)],
    ["Expectancy (USD)", fmt(s.expectancy_usd)],
    [
      "Average trade",
      s.avg_trade_duration_s === null ? "—" : `${(s.avg_trade_duration_s / 60).toFixed(1)} min`,
    ],
    [
      "Exits",
      Object.entries(s.exits_by_reason)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ") || "—",
    ],
    ["Exposure", `${s.exposure_pct}%`],
    ["Fees (USD)", s.fees_usd],
    ["Funding (USD)", s.funding_usd],
    ["Fills", String(s.fills)],
    ["Round trips", String(s.trades.length)],
  ];
  const params = Object.entries(s.params)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ");
  const trades = s.trades as ReportTrade[];
  const withCoin = trades.some((t) => t.coin !== undefined);
  const rows = trades
    .slice(0, MAX_TRADES_SHOWN)
    .map(
      (t) =>
        `<tr>${withCoin ? `<td>${esc(t.coin ?? "")}</td>` : ""}<td>${esc(t.side)}</td><td>${new Date(t.opened_ms).toISOString()}</td><td>${t.closed_ms === null ? "open" : new Date(t.closed_ms).toISOString()}</td><td>${esc(t.size)}</td><td>${esc(t.entry_px)}</td><td>${esc(t.exit_px ?? "—")}</td><td>${esc(t.fees)}</td><td>${esc(t.funding)}</td><td>${esc(t.net_pnl)}</td></tr>`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Backtest · ${esc(chart?.title ?? s.strategy)} · ${esc(s.instrument)}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1f2328; }
h1 { font-size: 20px; margin: 0 0 4px; }
.sub { color: #57606a; margin-bottom: 16px; }
.figs { display: grid; grid-template-columns: repeat(auto-fill, minmax(190px, 1fr)); gap: 8px; margin-bottom: 16px; }
.fig { border: 1px solid #d0d7de; border-radius: 6px; padding: 8px; }
.fig b { display: block; font-size: 12px; color: #57606a; font-weight: normal; }
.warn { border: 1px solid #d4a72c; background: #fff8c5; border-radius: 6px; padding: 8px 12px; margin-bottom: 16px; }
.warn li { margin: 2px 0; }
.chart { height: 320px; margin-bottom: 16px; border: 1px solid #d0d7de; }
h2 { font-size: 16px; margin: 16px 0 8px; }
table { border-collapse: collapse; font-size: 12px; }
td, th { border: 1px solid #d0d7de; padding: 2px 6px; text-align: right; }
</style>
</head>
<body>
<h1>${esc(chart?.title ?? s.strategy)} on ${esc(s.instrument)}</h1>
<div class="sub">${esc(s.from)} → ${esc(s.to)}${s.requested_from !== s.from || s.requested_to !== s.to ? ` (asked ${esc(s.requested_from)} → ${esc(s.requested_to)})` : ""} · stop: ${esc(s.stop_reason)} · ${s.candles} × ${esc(s.interval)} candles · fee tier ${s.fee_tier} · latency ${s.latency_ms} ms · slippage ${s.slippage_bps} bps · ${esc(params)}</div>
${s.warnings.length > 0 ? `<div class="warn"><b>This run traded less than asked, or its figures are weaker than they look:</b><ul>${s.warnings.map((w) => `<li>${esc(w)}</li>`).join("")}</ul></div>` : ""}
<div class="figs">${figures.map(([k, v]) => `<div class="fig"><b>${esc(k)}</b>${esc(v)}</div>`).join("")}</div>
<h2>${chart ? `${esc(chart.chartCoin)} price and its trades` : "Price and trades"}</h2>
<div id="price" class="chart"></div>
<h2>Equity (USD), and the capital held in the instrument (grey)</h2>
<div id="equity" class="chart"></div>
<h2>Drawdown (%)</h2>
<div id="drawdown" class="chart"></div>
${breakdownTable}
<h2>Trades${s.trades.length > MAX_TRADES_SHOWN ? ` (first ${MAX_TRADES_SHOWN} of ${s.trades.length})` : ""}</h2>
<table><thead><tr>${withCoin ? "<th>coin</th>" : ""}<th>side</th><th>opened</th><th>closed</th><th>size</th><th>entry</th><th>exit</th><th>fees</th><th>funding</th><th>net PnL</th></tr></thead>
<tbody>
${rows}
</tbody></table>
<script>${chartsScript}</script>
<script>
const DATA = ${scriptJson(data)};
const L = LightweightCharts;
const opts = { autoSize: true, timeScale: { timeVisible: true }, layout: { attributionLogo: false } };
const price = L.createChart(document.getElementById("price"), opts);
const bars = price.addSeries(L.CandlestickSeries, {});
bars.setData(DATA.bars);
L.createSeriesMarkers(bars, DATA.markers);
price.timeScale().fitContent();
const equity = L.createChart(document.getElementById("equity"), opts);
equity.addSeries(L.AreaSeries, { lineColor: "#0969da", topColor: "rgba(9,105,218,0.3)", bottomColor: "rgba(9,105,218,0.02)" }).setData(DATA.equity);
equity.addSeries(L.LineSeries, { color: "#8c959f", lineWidth: 1 }).setData(DATA.hold);
equity.timeScale().fitContent();
const drawdown = L.createChart(document.getElementById("drawdown"), opts);
drawdown.addSeries(L.AreaSeries, { lineColor: "#cf222e", topColor: "rgba(207,34,46,0.02)", bottomColor: "rgba(207,34,46,0.3)", invertFilledArea: true }).setData(DATA.drawdown);
drawdown.timeScale().fitContent();
document.body.dataset.charts = "ready";
</script>
</body>
</html>
`;
}
