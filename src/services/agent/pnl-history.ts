import type { StatusObject } from "./status-reader.ts";

/** One point of the dashboard's PnL chart. */
interface PnlPoint {
  time_ms: number;
  /** WOLF: total PnL; strategy: realised + unrealised. */
  pnl: number;
  /** WOLF: the mean ROE of the open slots, null when none is open (and in strategy mode). */
  open_roe_pct: number | null;
}

/** The chart's point for a status, or undefined when nothing runs. Pure. */
export function pnlPoint(s: StatusObject, timeMs: number): PnlPoint | undefined {
  if (s.status !== "running") return undefined;
  const f = s as Record<string, unknown>;
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
  if (f.engine === "wolf") {
    const pnl = n(f.total_pnl);
    if (pnl === undefined) return undefined;
    const slots = Array.isArray(f.active_slots) ? (f.active_slots as { roe_pct?: unknown }[]) : [];
    const roes = slots.map((x) => n(x.roe_pct)).filter((v): v is number => v !== undefined);
    const roe = roes.length > 0 ? roes.reduce((a, b) => a + b, 0) / roes.length : null;
    return { time_ms: timeMs, pnl, open_roe_pct: roe };
  }
  const realized = n(f.realized_pnl);
  const unrealized = n(f.unrealized_pnl);
  if (realized === undefined && unrealized === undefined) return undefined;
  return { time_ms: timeMs, pnl: (realized ?? 0) + (unrealized ?? 0), open_roe_pct: null };
}

/**
 * The agent's PnL over time, so the dashboard's chart has its history when the page opens: one point
 * per new tick, sampled by the service itself (whether or not a page is open), the last `capacity` kept.
 */
export class PnlHistory {
  private readonly points: PnlPoint[] = [];
  private lastTick: number | undefined;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly read: () => StatusObject,
    opts: { intervalMs?: number; capacity?: number; now?: () => number } = {},
  ) {
    this.capacity = opts.capacity ?? 5000;
    this.now = opts.now ?? Date.now;
    if (opts.intervalMs !== 0) {
      this.timer = setInterval(() => this.sample(), opts.intervalMs ?? 2000);
      this.timer.unref();
    }
  }

  private readonly capacity: number;
  private readonly now: () => number;

  /** Record the current status if its tick is new. */
  sample(): void {
    const s = this.read();
    const tick = s.status === "running" ? s.tick_count : undefined;
    if (tick === undefined || tick === this.lastTick) return;
    // Strictly increasing times: the page asks for the points after the last one it plotted.
    const prev = this.points.at(-1)?.time_ms;
    const point = pnlPoint(s, prev === undefined ? this.now() : Math.max(this.now(), prev + 1));
    if (!point) return;
    this.lastTick = tick;
    this.points.push(point);
    if (this.points.length > this.capacity) this.points.splice(0, this.points.length - this.capacity);
  }

  list(): readonly PnlPoint[] {
    return this.points;
  }

  /** The points stamped after `timeMs` (the page asks for what it has not plotted yet). */
  since(timeMs: number): readonly PnlPoint[] {
    let i = this.points.length;
    while (i > 0 && this.points[i - 1]!.time_ms > timeMs) i--;
    return this.points.slice(i);
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
