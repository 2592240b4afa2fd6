import type { Page } from "playwright-core";

/** What a user can see of WOLF at one moment: the agent service's JSON and the dashboard page itself. */

export interface HealthView {
  supervisor: string;
  alive: boolean;
  paused: boolean;
  halt_reason: string | null;
  restart_in_s: number | null;
  price_stream: string | null;
  unprotected: { slot_id: number; instrument: string; backstop: string }[];
}

export interface EntriesStoppedView {
  reason: string;
  detail: string;
  until: string | null;
}

export interface SlotView {
  slot_id: number;
  instrument: string;
  side: string;
  entry_size: number;
  entry_price: number;
  roe_pct: number;
  dsl_phase: number;
}

export interface ClosedSlotView extends SlotView {
  exit_price: number;
  realized_pnl: number;
  close_reason: string;
  closed_at_ms: number;
}

export interface StatusView {
  status: string;
  tick_count?: number;
  daily_pnl?: number;
  total_pnl?: number;
  total_trades?: number;
  realized_pnl?: number;
  unrealized_pnl?: number;
  account_pnl?: number;
  max_slots?: number;
  entries_stopped?: EntriesStoppedView | null;
  active_slots?: SlotView[];
  closed_slots?: ClosedSlotView[];
}

/** The dashboard as rendered in a browser: the texts a user reads, hidden elements as null. */
export interface DashboardView {
  state: string;
  /** The entries-stopped banner, null while hidden. */
  entriesStopped: string | null;
  /** The protection warnings (halted, protect-only, paused, unprotected slots…). */
  warnings: string[];
  tick: string;
  dailyPnl: string;
  totalPnl: string;
  accountPnl: string;
  slotsUsed: string;
  activeRows: string[][];
}

export interface Sample {
  at_ms: number;
  /** Minutes since `hl up` was started. */
  minute: number;
  /** The `hl up` process is still running. */
  up_running: boolean;
  /** Before WOLF first ran (sim backfilling, agents registering): not a stop. */
  starting: boolean;
  health: HealthView | null;
  status: StatusView | null;
  account_pnl: number | null;
  dashboard: DashboardView | null;
  /** Alerts received since the previous sample (event: text). */
  alerts: string[];
}

export async function getJson<T>(url: string, timeoutMs = 5000): Promise<T | null> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) return null;
    return (await res.json()) as T;
  } catch {
    return null;
  }
}

// Runs in the page: the dashboard's own elements, read as text (a hidden banner reads as null).
const READ_DASHBOARD = `(() => {
  const t = (id) => (document.getElementById(id)?.textContent ?? "").trim();
  const banner = document.getElementById("entries-stopped");
  const warn = document.getElementById("protection");
  return {
    state: t("state"),
    entriesStopped: banner && !banner.hidden ? banner.textContent.trim() : null,
    warnings: warn && !warn.hidden ? [...warn.querySelectorAll("li")].map((li) => li.textContent.trim()) : [],
    tick: t("tick"),
    dailyPnl: t("pnl1"),
    totalPnl: t("pnl2"),
    accountPnl: t("account"),
    slotsUsed: t("slots-used"),
    activeRows: [...document.querySelectorAll("#active tbody tr")]
      .map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent.trim()))
      .filter((r) => r.length > 1),
  };
})()`;

export async function readDashboard(page: Page): Promise<DashboardView | null> {
  try {
    return (await page.evaluate(READ_DASHBOARD)) as DashboardView;
  } catch {
    return null;
  }
}

/** One look at everything a user sees of the agent at `agentUrl` (and its open dashboard page). */
export async function takeSample(
  agentUrl: string,
  page: Page | null,
  meta: { startedMs: number; upRunning: boolean; upSeen: boolean; alerts: string[] },
): Promise<Sample> {
  const [health, status, account, dashboard] = await Promise.all([
    getJson<HealthView>(`${agentUrl}/health`),
    getJson<StatusView>(`${agentUrl}/api/status`),
    getJson<{ account_pnl: number | null }>(`${agentUrl}/api/account-pnl`),
    page ? readDashboard(page) : Promise.resolve(null),
  ]);
  const now = Date.now();
  const wolfRunning = health !== null && status?.status === "running";
  return {
    starting: meta.upRunning && !meta.upSeen && !wolfRunning,
    at_ms: now,
    minute: Math.round(((now - meta.startedMs) / 60_000) * 10) / 10,
    up_running: meta.upRunning,
    health,
    status,
    account_pnl: account?.account_pnl ?? null,
    dashboard,
    alerts: meta.alerts,
  };
}
