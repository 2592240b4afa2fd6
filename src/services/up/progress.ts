/** What the one-line progress summary of `hl up` shows; a field is undefined while unknown. */
export interface Progress {
  /** Wall time of the snapshot (ms). */
  nowMs: number;
  healthy: number;
  total: number;
  agentState?: "running" | "paused" | "stopped";
  tick?: number;
  /** The agent's PnL on its own books, open positions included. */
  totalPnl?: number;
  activeSlots?: number;
  maxSlots?: number;
  trades?: number;
  /** Agents ranked on the paper board, where `hl up` registers its agents. */
  agentsOnBoard?: number;
  btcswp?: string;
  isfrBps?: number;
}

const signed = (v: number) => `${v >= 0 ? "+" : ""}${v.toFixed(2)}`;

/** One line, no newline: `12:00:05 · 10/10 up · WOLF tick 14 PnL +3.21 2/3 slots 4 trades · …`. */
export function formatProgress(p: Progress): string {
  const parts = [new Date(p.nowMs).toISOString().slice(11, 19), `${p.healthy}/${p.total} up`];
  if (p.tick === undefined) parts.push(`WOLF ${p.agentState ?? "starting"}`);
  else {
    let wolf = `WOLF tick ${p.tick}`;
    if (p.agentState === "paused") wolf += " (paused)";
    if (p.totalPnl !== undefined) wolf += ` PnL ${signed(p.totalPnl)}`;
    if (p.activeSlots !== undefined && p.maxSlots !== undefined)
      wolf += ` ${p.activeSlots}/${p.maxSlots} slots`;
    if (p.trades !== undefined) wolf += ` ${p.trades} trades`;
    parts.push(wolf);
  }
  parts.push(`leaderboard ${p.agentsOnBoard ?? "–"} agents`);
  parts.push(`BTCSWP ${p.btcswp === undefined ? "–" : Number(p.btcswp).toFixed(2)}`);
  if (p.isfrBps !== undefined) parts.push(`ISFR ${p.isfrBps.toFixed(1)} bps`);
  return parts.join(" · ");
}

async function getJson(url: string, timeoutMs = 2000): Promise<unknown> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) {
    await res.body?.cancel();
    throw new Error(`HTTP ${res.status}`);
  }
  return res.json();
}

/** A field read from a JSON answer, or undefined when the service is not answering (yet). */
async function field<T>(url: string, pick: (body: Record<string, unknown>) => T): Promise<T | undefined> {
  try {
    const body = await getJson(url);
    return typeof body === "object" && body !== null ? pick(body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const numberOr = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);

interface ProgressSources {
  agentUrl: string;
  leaderboardUrl: string;
  btcswpFeedUrl: string;
  isfrUrl: string;
}

/** Ask each service for its part of the summary, all at once. */
export async function readProgress(
  src: ProgressSources,
  health: { healthy: number; total: number },
  nowMs: number,
): Promise<Progress> {
  const [status, paused, agentsOnBoard, btcswp, isfrBps] = await Promise.all([
    field(`${src.agentUrl}/api/status`, (b) => b),
    field(`${src.agentUrl}/health`, (b) => b.paused === true),
    field(`${src.leaderboardUrl}/api/leaderboard?network=paper`, (b) => numberOr(b.total_agents)),
    field(`${src.btcswpFeedUrl}/api/latest`, (b) =>
      typeof b.oracle_px === "string" ? b.oracle_px : undefined,
    ),
    field(`${src.isfrUrl}/isfr/v1/isfr/current`, (b) => numberOr(b.isfr_bps)),
  ]);
  const p: Progress = { nowMs, ...health, agentsOnBoard, btcswp, isfrBps };
  if (status?.status === "running") {
    p.agentState = paused ? "paused" : "running";
    p.tick = numberOr(status.tick_count);
    // The trader's books (realised + open − fees on open): realised alone reads +0.00 while slots lose.
    p.totalPnl = numberOr(status.account_pnl) ?? numberOr(status.total_pnl);
    p.maxSlots = numberOr(status.max_slots);
    p.activeSlots = Array.isArray(status.active_slots) ? status.active_slots.length : undefined;
    p.trades = numberOr(status.total_trades);
  } else if (status) p.agentState = "stopped";
  return p;
}
