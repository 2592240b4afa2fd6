// Points page: enter a wallet, see its BTCSWP launch points from the points API.
const $ = (id) => document.getElementById(id);

function text(tag, value, cls) {
  const el = document.createElement(tag);
  el.textContent = value;
  if (cls) el.className = cls;
  return el;
}

function stat(label, value) {
  const el = document.createElement("div");
  el.className = "stat";
  el.append(text("b", label), text("span", value));
  return el;
}

function render(p) {
  const out = $("result");
  out.replaceChildren();
  out.append(text("div", `${p.total_points} points`, "total"));
  const grid = document.createElement("div");
  grid.className = "grid";
  grid.append(
    stat("Eligible volume (USD)", p.eligible_volume_usd),
    stat("Provisional points", p.provisional_points),
    stat("Fills (eligible / total)", `${p.fills_eligible} / ${p.fills_total}`),
    stat("Out of band", String(p.excluded.out_of_band)),
    stat("No eligible builder", String(p.excluded.no_builder)),
    stat("Over daily cap", String(p.excluded.capped)),
    stat("No oracle mark", String(p.excluded.no_mark)),
    stat("As of", p.as_of.replace("T", " ").slice(0, 19)),
  );
  out.append(grid);
  const table = document.createElement("table");
  const head = document.createElement("tr");
  for (const h of ["Day (UTC)", "Points", "Eligible USD", "Capped USD"]) head.append(text("th", h));
  table.append(head);
  for (const d of p.by_day) {
    const row = document.createElement("tr");
    for (const v of [d.date, d.points, d.eligible_volume_usd, d.capped_volume_usd]) row.append(text("td", v));
    table.append(row);
  }
  out.append(table);
  if (p.fills?.length) {
    out.append(text("h2", `Fills (latest ${Math.min(p.fills.length, 200)} of ${p.fills.length})`));
    const fills = document.createElement("table");
    const fh = document.createElement("tr");
    for (const h of ["Time (UTC)", "Role", "Price", "Mark", "USD", "Points", "Outcome"])
      fh.append(text("th", h));
    fills.append(fh);
    for (const f of p.fills.slice(-200).reverse()) {
      const row = document.createElement("tr");
      const outcome = f.excluded ?? (f.provisional ? "provisional" : "eligible");
      const cells = [
        new Date(f.time).toISOString().replace("T", " ").slice(0, 19),
        f.role,
        f.px,
        f.mark ?? "—",
        f.volume_usd,
        f.points,
        outcome,
      ];
      for (const v of cells) row.append(text("td", v));
      fills.append(row);
    }
    out.append(fills);
  }
}

async function lookup(wallet) {
  $("result").replaceChildren(text("p", "Loading…"));
  try {
    const res = await fetch(`/points/market-address/${encodeURIComponent(wallet)}?fills=true`);
    const body = await res.json();
    if (!res.ok) throw new Error(body.error ?? `HTTP ${res.status}`);
    render(body);
    history.replaceState(null, "", `?wallet=${wallet}`);
  } catch (err) {
    $("result").replaceChildren(text("p", err.message, "error"));
  }
}

$("lookup").addEventListener("submit", (e) => {
  e.preventDefault();
  lookup($("wallet").value.trim());
});

fetch("/points/market-config")
  .then((r) => r.json())
  .then((c) => {
    $("where").textContent = `network: ${c.network ?? "unknown"} · times: UTC`;
    $("rules").textContent =
      `points = volume/1000 × ${c.market_multiplier} × (maker ${c.role_multipliers.maker} | taker ${c.role_multipliers.taker}), ` +
      `within ±${c.oracle_band.bps} bps of the oracle mark, up to $${c.daily_cap.eligible_volume_usd.toLocaleString()} per UTC day.`;
  })
  .catch(() => {
    $("rules").textContent = "Market config unavailable.";
  });

// Under `hl up`, the wallets of the agents trading on this machine: one click looks one up.
fetch("/points/local-agents")
  .then((r) => (r.ok ? r.json() : { agents: [] }))
  .then(({ agents }) => {
    if (!agents?.length) return;
    const box = $("agents");
    box.append(text("span", "Agents on this machine:"));
    for (const a of agents) {
      const b = text("button", a.name);
      b.type = "button";
      b.title = a.address;
      b.addEventListener("click", () => {
        $("wallet").value = a.address;
        lookup(a.address);
      });
      box.append(b);
    }
    box.hidden = false;
  })
  .catch(() => undefined);

const initial = new URLSearchParams(location.search).get("wallet");
if (initial) {
  $("wallet").value = initial;
  lookup(initial);
}
