import { join } from "node:path";
import { D, type Dec, dec, num } from "../core/decimal.ts";

/**
 * The contract's single-strategy status object from the `kv` rows of `cli/state.db` (pure; the
 * agent service reads the file and decides liveness). Missing or unreadable state → stopped.
 */
type SingleStrategyStatus =
  | { status: "stopped" }
  | {
      status: "running";
      engine: string;
      tick_count: number;
      instrument: string;
      position_qty: number;
      unrealized_pnl: number;
      realized_pnl: number;
      /** Every fee paid (already subtracted from realized_pnl). */
      fees_paid: number;
      /** realized + unrealized: what the leaderboard ranks, but for funding payments. */
      account_pnl: number;
      total_orders: number;
      total_fills: number;
      /** Added field: why the engine opens nothing new now (exits still run), or null. */
      entries_stopped: {
        reason: "risk_hard_stop" | "reduce_only";
        detail: string;
        until: null;
      } | null;
    };

interface StoredPosition {
  net_qty?: string;
  unrealized_pnl?: string;
  realized_pnl?: string;
  fees_paid?: string;
}

function parse(raw: string | undefined): unknown {
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/** A stored decimal string (or number) as a decimal; anything unreadable counts as 0. */
function decOf(v: unknown): Dec {
  if (typeof v !== "string" && typeof v !== "number") return new D(0);
  try {
    const d = dec(v);
    return d.isFinite() ? d : new D(0);
  } catch {
    return new D(0);
  }
}

type EngineEntriesStopped = Extract<SingleStrategyStatus, { status: "running" }>["entries_stopped"];

/** From the stored risk state: a hard stop (until restarted with --fresh) or reduce-only mode. */
function entriesStopped(risk: unknown): EngineEntriesStopped {
  const st = (
    risk as { state?: { halted?: unknown; halt_reason?: unknown; reduce_only?: unknown; reasons?: unknown } }
  )?.state;
  if (!st) return null;
  if (st.halted === true)
    return {
      reason: "risk_hard_stop",
      detail: typeof st.halt_reason === "string" && st.halt_reason ? st.halt_reason : "limit breached",
      until: null,
    };
  if (st.reduce_only === true) {
    const reasons = Array.isArray(st.reasons) ? st.reasons.filter((r) => typeof r === "string") : [];
    return { reason: "reduce_only", detail: reasons.join("; ") || "risk limit", until: null };
  }
  return null;
}

export function statusFromKv(kv: Readonly<Record<string, string>>): SingleStrategyStatus {
  const tick = parse(kv.tick_count);
  const engine = parse(kv.strategy_id);
  const instrument = parse(kv.instrument);
  if (typeof tick !== "number" || typeof engine !== "string" || typeof instrument !== "string") {
    return { status: "stopped" };
  }
  const positions = parse(kv.positions) as
    | { agents?: Record<string, Record<string, StoredPosition>> }
    | undefined;
  const pos = positions?.agents?.[engine]?.[instrument] ?? {};
  const stats = (parse(kv.order_stats) ?? {}) as { total_placed?: unknown; total_filled?: unknown };
  return {
    status: "running",
    engine,
    tick_count: tick,
    instrument,
    position_qty: num(decOf(pos.net_qty)),
    unrealized_pnl: num(decOf(pos.unrealized_pnl)),
    // Realized PnL net of fees paid: what the trades actually locked in.
    realized_pnl: num(decOf(pos.realized_pnl).minus(decOf(pos.fees_paid))),
    fees_paid: num(decOf(pos.fees_paid)),
    account_pnl: num(decOf(pos.realized_pnl).minus(decOf(pos.fees_paid)).plus(decOf(pos.unrealized_pnl)), 2),
    total_orders: num(decOf(stats.total_placed)),
    total_fills: num(decOf(stats.total_filled)),
    entries_stopped: entriesStopped(parse(kv.risk)),
  };
}

/** What `hl status` says when `dir` holds no strategy engine state (its agent may run WOLF instead). */
export function noEngineStateLine(dir: string, has: { wolf: boolean }): string {
  const where = `No strategy engine state in ${join(dir, "cli")}`;
  return has.wolf
    ? `${where}: the agent here runs WOLF (hl wolf status --data-dir ${dir}).`
    : `${where}. Start one with: hl run STRATEGY --network paper`;
}
