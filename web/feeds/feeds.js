// SWP feeds page: one card per feed, history then live ticks over the same-origin proxy.
const FEEDS = ["btcswp", "hypeswp", "ethcswp", "spcxswp"];
const HISTORY_WINDOW_MS = 6 * 3600 * 1000;

function card(feed) {
  const el = document.createElement("section");
  el.className = "feed";
  el.innerHTML = `<div class="head"><span class="name">${feed.toUpperCase()}</span><span class="px">…</span></div>
    <div class="meta">connecting…</div><div class="chart"></div>`;
  document.getElementById("feeds").appendChild(el);
  return el;
}

function point(tick) {
  return { time: Math.floor(tick.timestamp / 1000), value: Number(tick.oracle_px) };
}

async function startFeed(feed) {
  const el = card(feed);
  // autoSize: the chart follows its card as the grid reflows (a fixed size taken at creation,
  // before the other cards exist, spilled into the neighbouring card).
  const chart = LightweightCharts.createChart(el.querySelector(".chart"), {
    autoSize: true,
    layout: { background: { color: "#161a21" }, textColor: "#bbb" },
    grid: { vertLines: { color: "#20252d" }, horzLines: { color: "#20252d" } },
    timeScale: { timeVisible: true, secondsVisible: true },
  });
  const series = chart.addSeries(LightweightCharts.LineSeries, { lineWidth: 2, color: "#4fc3f7" });
  let lastTime = 0;

  const show = (tick) => {
    if (!(latestTickMs >= tick.timestamp)) {
      latestTickMs = tick.timestamp;
      showWhere();
    }
    el.querySelector(".px").textContent = tick.oracle_px;
    const meta = el.querySelector(".meta");
    meta.classList.remove("down");
    meta.textContent = `${new Date(tick.timestamp).toISOString().replace("T", " ").slice(0, 19)} UTC · rate ${tick.funding_rate} · K ${Number(tick.fixed_leg).toExponential(4)}`;
    const p = point(tick);
    if (p.time >= lastTime) {
      series.update(p);
      lastTime = p.time;
    }
  };

  try {
    const latest = await (await fetch(`/api/feeds/${feed}/latest`)).json();
    const from = (latest.timestamp ?? Date.now()) - HISTORY_WINDOW_MS;
    const page = await (await fetch(`/api/feeds/${feed}/history?from=${from}&limit=5000`)).json();
    const bySecond = new Map();
    for (const t of page.ticks ?? []) bySecond.set(Math.floor(t.timestamp / 1000), point(t));
    const data = [...bySecond.values()].sort((a, b) => a.time - b.time);
    series.setData(data);
    lastTime = data.length ? data[data.length - 1].time : 0;
    if (latest.oracle_px) show(latest);
  } catch {
    el.querySelector(".meta").textContent = "history unavailable";
  }

  const stream = new EventSource(`/api/feeds/${feed}/stream`);
  stream.addEventListener("price", (e) => show(JSON.parse(e.data)));
  stream.onerror = () => {
    const meta = el.querySelector(".meta");
    meta.classList.add("down");
    meta.textContent = "reconnecting…";
  };
}

// Where the prices come from, and the clock the times are on: UTC, or the sim's clock when the sim
// runs faster than the wall clock (its ticks then run ahead of it).
let network = "…";
let latestTickMs;
function showWhere() {
  const ahead = typeof latestTickMs === "number" && latestTickMs - Date.now() > 60_000;
  document.getElementById("where").textContent =
    `network: ${network} · times: ${ahead ? "sim time (UTC)" : "UTC"}`;
}
fetch("/healthz")
  .then((r) => r.json())
  .then((h) => {
    network = h.network ?? "unknown";
    showWhere();
  })
  .catch(() => undefined);

for (const feed of FEEDS) startFeed(feed);
