// Agent dashboard: live from /api/feed (SSE), controls through /api/pause and /api/resume.
const $ = (id) => document.getElementById(id);
const fmt = (v, dp = 2) => (typeof v === "number" && Number.isFinite(v) ? v.toFixed(dp) : (v ?? "–"));
const signed = (v) => (typeof v === "number" ? `${v >= 0 ? "+" : ""}${v.toFixed(2)}` : "–");
const cls = (v) => (typeof v === "number" ? (v >= 0 ? "up" : "down") : "");
let info = { control_token_required: false };
let token = sessionStorage.getItem("agentToken") || "";

const LC = window.LightweightCharts;
const chart = LC
  ? LC.createChart($("chart"), {
      autoSize: true,
      layout: { background: { color: "#161b22" }, textColor: "#8b949e", attributionLogo: false },
      grid: { vertLines: { color: "#21262d" }, horzLines: { color: "#21262d" } },
      timeScale: { timeVisible: true, secondsVisible: true, rightOffset: 4, borderColor: "#30363d" },
      rightPriceScale: { borderColor: "#30363d", scaleMargins: { top: 0.15, bottom: 0.1 } },
      leftPriceScale: { visible: false, borderColor: "#30363d", scaleMargins: { top: 0.15, bottom: 0.1 } },
    })
  : null;
// Realized PnL (USD, right scale) and, in WOLF mode, the mean ROE of open slots (%, left scale):
// the first moves when a slot closes, the second with every price move.
const series = chart
  ? chart.addSeries(LC.AreaSeries, {
      lineColor: "#58a6ff",
      topColor: "rgba(88,166,255,0.25)",
      bottomColor: "rgba(88,166,255,0.02)",
      lineWidth: 2,
      title: "PnL $",
    })
  : null;
const roeSeries = chart
  ? chart.addSeries(LC.LineSeries, {
      color: "#d29922",
      lineWidth: 2,
      priceScaleId: "left",
      title: "open ROE %",
    })
  : null;
let lastChartTime = 0;
const price = (v) => {
  const n = Number(v);
  if (!Number.isFinite(n)) return v ?? "–";
  return n.toPrecision(n >= 1000 ? 7 : 6).replace(/\.?0+$/, "");
};

/** A slot's stop on the exchange: its trigger price while resting, else why it is unprotected. */
function exchangeStop(b) {
  if (!b) return "—";
  if (b.status === "resting") return price(b.trigger_px);
  return { text: b.status === "refused" ? "refused: unprotected" : "none: unprotected", cls: "down" };
}

function row(cells) {
  const tr = document.createElement("tr");
  for (const c of cells) {
    const td = document.createElement("td");
    if (c && typeof c === "object") {
      td.textContent = c.text;
      if (c.cls) td.className = c.cls;
    } else td.textContent = c;
    tr.appendChild(td);
  }
  return tr;
}

function fill(tableId, rows, emptyText, width) {
  const body = $(tableId).querySelector("tbody");
  body.replaceChildren();
  if (rows.length === 0) {
    const tr = document.createElement("tr");
    const td = document.createElement("td");
    td.colSpan = width;
    td.className = "empty";
    td.textContent = emptyText;
    tr.appendChild(td);
    body.appendChild(tr);
    return;
  }
  for (const r of rows) body.appendChild(row(r));
}

// Open ROE: a point while a slot is open; with none open, a gap, and its label and scale go away
// (a label that kept the last value would claim an open position that no longer exists).
function showRoe(t, roe) {
  if (roe === null) {
    roeSeries.update({ time: t });
    roeSeries.applyOptions({ lastValueVisible: false, title: "" });
    chart.priceScale("left").applyOptions({ visible: false });
    return;
  }
  roeSeries.update({ time: t, value: roe });
  roeSeries.applyOptions({ lastValueVisible: true, title: "open ROE %" });
  chart.priceScale("left").applyOptions({ visible: true });
}

// The chart's points, kept and time-stamped by the agent service on the exchange's clock (the page's
// one clock: sim time on a fast sim world): the page shows the run so far, then each new point.
let lastPointMs = null;
async function refreshChart() {
  if (!series) return;
  try {
    const since = lastPointMs === null ? "" : `?since_ms=${lastPointMs}`;
    const { points } = await (await fetch(`/api/pnl-history${since}`)).json();
    for (const p of points) {
      const t = Math.max(lastChartTime + 1, Math.floor(p.time_ms / 1000));
      lastChartTime = t;
      lastPointMs = p.time_ms;
      series.update({ time: t, value: p.pnl });
      showRoe(t, p.open_roe_pct);
    }
    if (points.length > 0) chart.timeScale().fitContent();
  } catch {
    /* the next round retries */
  }
}

// One clock per page: UTC, or the sim's clock when the sim runs faster than the wall clock (its fill
// times then run ahead of it).
function labelClock(latestExchangeMs) {
  const ahead = typeof latestExchangeMs === "number" && latestExchangeMs - Date.now() > 60_000;
  $("clock").textContent = ahead ? "times: sim time (UTC)" : "times: UTC";
}

// Why WOLF holds no slot yet: its first scan still reading candles, or no signal in the last one.
function showScan(s) {
  const note = $("scan-note");
  const scan = s?.scan;
  let text = "";
  if (scan && s.active_slots.length === 0 && !s.entries_stopped) {
    if (scan.phase === "first_scan") {
      const read =
        scan.series_total > 0
          ? `${scan.series_read} of ${scan.series_total} candle series read`
          : "reading the market list";
      text = `Scanning the market: ${read} (paced by the exchange's request-weight limit); WOLF opens slots after the first scan.`;
    } else if (scan.signals === 0 && scan.last_scan_ms !== null) {
      text = `No entry signal in the last scan (${new Date(scan.last_scan_ms).toISOString().slice(11, 16)}).`;
    }
  }
  note.hidden = text === "";
  note.textContent = text;
}

function render(s) {
  // No job: the pill and the reason come from /health (restarting, given up, finished…).
  if (s.status !== "running") {
    refreshHealth();
    return;
  }
  $("tick").textContent = s.tick_count;
  const stopped = $("entries-stopped");
  stopped.hidden = !s.entries_stopped;
  if (s.entries_stopped) {
    const e = s.entries_stopped;
    const until = e.until ? `until ${e.until.replace("T", " ").slice(0, 16)} UTC` : "until restarted";
    stopped.textContent = `Entries stopped (${e.reason.replaceAll("_", " ")}: ${e.detail}) ${until}; exits still run.`;
  }
  const wolf = s.engine === "wolf";
  showScan(wolf ? s : null);
  $("wolf-only").hidden = !wolf;
  $("strategy-only").hidden = wolf;
  if (wolf) {
    // Both move only when a slot closes: with slots open they read +0.00 while the books move.
    $("pnl1-label").textContent = "Daily PnL (realised)";
    $("pnl2-label").textContent = "Total PnL (realised)";
    series?.applyOptions({ title: "realised PnL $" });
    $("count-label").textContent = "Trades";
    $("pnl1").textContent = signed(s.daily_pnl);
    $("pnl1").className = cls(s.daily_pnl);
    $("pnl2").textContent = signed(s.total_pnl);
    $("pnl2").className = cls(s.total_pnl);
    $("count").textContent = s.total_trades;
    $("slots-used").textContent = `${s.active_slots.length}/${s.max_slots} used`;
    fill(
      "active",
      s.active_slots.map((x) => [
        x.slot_id,
        x.instrument,
        { text: x.side, cls: x.side === "long" ? "up" : "down" },
        price(x.entry_size),
        price(x.entry_price),
        { text: fmt(x.roe_pct), cls: cls(x.roe_pct) },
        x.dsl_phase,
        exchangeStop(x.backstop),
      ]),
      "No active positions.",
      8,
    );
    fill(
      "closed",
      s.closed_slots.map((x) => [
        x.slot_id,
        x.instrument,
        x.side,
        price(x.entry_price),
        price(x.exit_price),
        { text: signed(x.realized_pnl), cls: cls(x.realized_pnl) },
        fmt(x.roe_pct),
        x.close_reason,
      ]),
      "Nothing closed yet.",
      8,
    );
  } else {
    $("pnl1-label").textContent = "Unrealized PnL";
    $("pnl2-label").textContent = "Realized PnL";
    $("count-label").textContent = "Fills";
    $("pnl1").textContent = signed(s.unrealized_pnl);
    $("pnl1").className = cls(s.unrealized_pnl);
    $("pnl2").textContent = signed(s.realized_pnl);
    $("pnl2").className = cls(s.realized_pnl);
    $("count").textContent = s.total_fills;
    fill(
      "position",
      [
        [
          s.instrument,
          fmt(s.position_qty, 4),
          signed(s.unrealized_pnl),
          signed(s.realized_pnl),
          s.total_orders,
          s.total_fills,
        ],
      ],
      "",
      6,
    );
  }
  // The same figures the leaderboard adds up (see the note under the cards).
  const fees = wolf ? s.open_fees : s.fees_paid;
  $("fees-label").textContent = wolf ? "Fees on open positions" : "Fees paid (in realised)";
  $("note-fees").textContent = wolf
    ? "fees already paid on open positions"
    : "0 (every fee is already in realised)";
  for (const [id, v] of [
    ["realized", s.realized_pnl],
    ["unrealized", s.unrealized_pnl],
    ["books", s.account_pnl],
  ]) {
    $(id).textContent = signed(v);
    $(id).className = cls(v);
  }
  $("fees").textContent = fmt(fees);
  refreshTrades();
}

// The state pill while no trading job runs, by the supervisor's state (the reason is in the warnings).
const PILL = {
  backoff: "restarting",
  gave_up: "given up",
  halted: "halted",
  exited: "finished",
  starting: "starting",
  stopped: "stopped",
};

async function refreshHealth() {
  try {
    const h = await (await fetch("/health")).json();
    $("uptime").textContent = `${Math.floor(h.uptime_s / 60)}m ${h.uptime_s % 60}s`;
    const state = $("state");
    if (h.paused) {
      state.textContent = "paused";
      state.className = "pill paused";
    } else if (h.supervisor === "protect_only") {
      state.textContent = "protect-only";
      state.className = "pill paused";
    } else if (h.alive) {
      state.textContent = "running";
      state.className = "pill running";
    } else {
      state.textContent = PILL[h.supervisor] ?? "stopped";
      state.className =
        h.supervisor === "backoff" || h.supervisor === "starting" ? "pill paused" : "pill stopped";
    }
    // Whenever the job is not trading, the service's sentence says why (crash, give-up, halt, pause…).
    const lines = h.stop_notice ? [h.stop_notice] : [];
    if (h.price_stream_degraded_coins?.length)
      lines.push(`No streamed price for ${h.price_stream_degraded_coins.join(", ")}: polled every second.`);
    for (const u of h.unprotected ?? [])
      lines.push(`Slot ${u.slot_id} ${u.instrument}: no stop resting on the exchange (${u.backstop}).`);
    const protection = $("protection");
    protection.replaceChildren(
      ...lines.map((l) => {
        const li = document.createElement("li");
        li.textContent = l;
        return li;
      }),
    );
    protection.hidden = lines.length === 0;
    const stream = $("stream");
    stream.hidden = !h.price_stream;
    if (h.price_stream) {
      const ok = h.price_stream === "ok";
      stream.textContent = ok ? "prices: streaming" : "prices: degraded (polling)";
      stream.className = `pill ${ok ? "running" : "paused"}`;
    }
  } catch {
    $("state").textContent = "unreachable";
  }
}

// The account PnL the leaderboard ranks, from the agent service's reading of the exchange account.
async function refreshAccount() {
  try {
    const a = await (await fetch("/api/account-pnl")).json();
    $("account").textContent = signed(a.account_pnl);
    $("account").className = cls(a.account_pnl);
    $("account-at").textContent =
      typeof a.read_at_ms === "number"
        ? `read at ${new Date(a.read_at_ms).toISOString().slice(11, 19)}: ${fmt(a.account_value)} − ${fmt(a.initial_account_value)}`
        : "not on a leaderboard yet";
  } catch {
    /* the next round retries */
  }
}

async function refreshTrades() {
  try {
    const { trades } = await (await fetch("/api/trades?limit=15")).json();
    labelClock(trades.at(-1)?.timestamp_ms);
    fill(
      "trades",
      trades
        .reverse()
        .map((t) => [
          new Date(t.timestamp_ms).toISOString().slice(11, 19),
          t.tick,
          t.instrument,
          { text: t.side, cls: t.side === "buy" ? "up" : "down" },
          price(t.quantity),
          price(t.price),
          fmt(Number(t.fee), 2),
        ]),
      "No trades yet.",
      7,
    );
  } catch {
    /* the next event retries */
  }
}

async function control(action) {
  const headers = { "Content-Type": "application/json" };
  if (info.control_token_required) {
    if (!token) token = prompt("Control token (AGENT_API_TOKEN)") || "";
    sessionStorage.setItem("agentToken", token);
    headers.Authorization = `Bearer ${token}`;
  }
  const res = await fetch(`/api/${action}`, { method: "POST", headers });
  const body = await res.json();
  $("control-msg").textContent = body.status || body.error;
  if (res.status === 401) {
    token = "";
    sessionStorage.removeItem("agentToken");
  }
  refreshHealth();
}

async function main() {
  try {
    info = await (await fetch("/api/info")).json();
    $("mode").textContent = `mode: ${info.mode}`;
    $("network").textContent = `network: ${info.network}`;
  } catch {
    /* older service: keep defaults */
  }
  const here = window.location;
  const links = window.HL_LINKS || [];
  for (const l of links) {
    const a = document.createElement("a");
    a.href = l.href.replace("{host}", here.hostname);
    a.textContent = l.label;
    $("links").appendChild(a);
  }
  $("pause").onclick = () => control("pause");
  $("resume").onclick = () => control("resume");
  await refreshChart();
  const es = new EventSource("/api/feed");
  es.onmessage = (ev) => render(JSON.parse(ev.data));
  refreshHealth();
  refreshAccount();
  setInterval(() => {
    refreshHealth();
    refreshAccount();
    refreshChart();
  }, 2000);
}
main();
