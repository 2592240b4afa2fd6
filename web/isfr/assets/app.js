// ISFR page: current rate, components, confidence, sources and an OHLC chart (lightweight-charts).
const API = "/isfr/v1/isfr";
const $ = (id) => document.getElementById(id);
let interval = "1D";

function cell(text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

function row(cells) {
  const tr = document.createElement("tr");
  for (const c of cells) tr.append(c);
  return tr;
}

async function getJson(path) {
  const res = await fetch(API + path);
  const body = await res.json();
  if (!res.ok) throw new Error(body.error || `HTTP ${res.status}`);
  return body;
}

const chart = LightweightCharts.createChart($("chart"), {
  layout: { background: { color: "transparent" }, textColor: "#8b949e" },
  grid: { vertLines: { color: "#21262d" }, horzLines: { color: "#21262d" } },
  timeScale: { timeVisible: true },
});
const candles = chart.addSeries(LightweightCharts.CandlestickSeries, {
  upColor: "#3fb950",
  downColor: "#f85149",
  borderVisible: false,
  wickUpColor: "#3fb950",
  wickDownColor: "#f85149",
});

// One clock on every page: UTC, as "YYYY-MM-DD HH:MM:SS".
const utc = (t) => new Date(t).toISOString().slice(0, 19).replace("T", " ");

// The network whose funding ISFR reads; every time on the page is UTC.
fetch(`${API.replace(/\/v1\/isfr$/, "")}/health`)
  .then((r) => r.json())
  .then((h) => {
    $("where").textContent = `network: ${h.network ?? "unknown"} · times: UTC`;
  })
  .catch(() => undefined);

async function refreshCurrent() {
  try {
    const cur = await getJson("/current");
    $("rate").textContent = cur.rate_formatted;
    $("timestamp").textContent = `${utc(cur.timestamp)} UTC`;
    $("confidence").textContent = cur.confidence.toFixed(2);
    $("version").textContent = cur.version;
    $("fallback").textContent =
      cur.detail && cur.detail.fallback !== "none" ? `fallback: ${cur.detail.fallback}` : "";
    $("components").replaceChildren(
      ...Object.keys(cur.components).map((k) =>
        row([
          cell(k),
          cell(cur.components[k] === null ? "—" : cur.components[k].toFixed(2), "num"),
          cell(`${(cur.class_weights_effective[k] * 100).toFixed(1)}%`, "num"),
        ]),
      ),
    );
    $("error").textContent = "";
  } catch (err) {
    $("rate").textContent = "—";
    $("error").textContent = err.message;
  }
}

async function refreshSources() {
  try {
    const { sources } = await getJson("/sources");
    $("sources").replaceChildren(
      ...sources.map((s) =>
        row([
          cell(s.id),
          cell(s.class),
          cell(String(s.weight), "num"),
          cell(s.last_value_bps === null ? "—" : s.last_value_bps.toFixed(2), "num"),
          cell(s.last_update ? utc(s.last_update).slice(11) : "—"),
          cell(s.status, `status-${s.status}`),
        ]),
      ),
    );
  } catch {
    // The current-rate panel already shows why the service is unavailable.
  }
}

async function refreshChart() {
  try {
    const days = { "1H": 7, "4H": 30, "1D": 180, "1W": 365 }[interval];
    const ohlc = await getJson(`/ohlc?interval=${interval}&days=${days}`);
    candles.setData(
      ohlc.candles.map((c) => ({ time: c.time, open: c.open, high: c.high, low: c.low, close: c.close })),
    );
    chart.timeScale().fitContent();
  } catch {
    candles.setData([]);
  }
}

for (const b of document.querySelectorAll("[data-interval]")) {
  b.addEventListener("click", () => {
    interval = b.dataset.interval;
    for (const other of document.querySelectorAll("[data-interval]"))
      other.classList.toggle("on", other === b);
    refreshChart();
  });
}

function refreshAll() {
  refreshCurrent();
  refreshSources();
  refreshChart();
}
refreshAll();
setInterval(refreshAll, 30_000);
