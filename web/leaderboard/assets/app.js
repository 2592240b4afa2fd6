// Leaderboard page: ranked agents per network, refreshed every 15 s.
const asked = new URLSearchParams(location.search).get("network");
let network = asked === "mainnet" || asked === "paper" ? asked : "testnet";
const money = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });

function cell(text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

function signed(v) {
  return cell(`${v > 0 ? "+" : ""}${money.format(v)}`, `num ${v > 0 ? "up" : v < 0 ? "down" : ""}`);
}

function agentCell(a) {
  const td = document.createElement("td");
  const name = document.createElement("div");
  name.textContent = a.display_name || "(unnamed)";
  if (a.stale) {
    const s = document.createElement("span");
    s.className = "stale";
    s.textContent = "stale";
    s.title = "The last exchange query for this agent failed; values are the last known ones.";
    name.append(s);
  }
  const addr = document.createElement("div");
  addr.className = "addr";
  addr.textContent = a.address;
  td.append(name, addr);
  return td;
}

// One clock on every page: UTC, as "YYYY-MM-DD HH:MM:SS".
const utc = (t) => new Date(t).toISOString().slice(0, 19).replace("T", " ");

async function refresh() {
  try {
    const res = await fetch(`/api/leaderboard?network=${network}`);
    const board = await res.json();
    if (!res.ok) throw new Error(board.error || `HTTP ${res.status}`);
    document.getElementById("rows").replaceChildren(
      ...board.agents.map((a) => {
        const tr = document.createElement("tr");
        tr.append(
          cell(String(a.rank)),
          agentCell(a),
          signed(a.pnl),
          signed(a.pnl_adjusted),
          cell(money.format(a.account_value), "num"),
          cell(String(a.positions_count), "num"),
          cell(utc(a.registered_at).slice(0, 10)),
        );
        return tr;
      }),
    );
    document.getElementById("where").textContent = `network: ${network} · times: UTC`;
    document.getElementById("meta").textContent =
      `${board.total_agents} agents · updated ${utc(board.last_updated).slice(11)}`;
    document.getElementById("error").textContent = "";
  } catch (err) {
    document.getElementById("error").textContent = err.message;
  }
}

for (const b of document.querySelectorAll("[data-network]")) {
  b.classList.toggle("on", b.dataset.network === network);
  b.addEventListener("click", () => {
    network = b.dataset.network;
    for (const o of document.querySelectorAll("[data-network]")) o.classList.toggle("on", o === b);
    history.replaceState(null, "", `?network=${network}`);
    refresh();
  });
}
refresh();
setInterval(refresh, 15_000);
