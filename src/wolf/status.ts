import { num } from "../core/decimal.ts";
import { usd } from "../core/money.ts";
import { type WolfPnl, wolfPnl } from "./pnl.ts";
import type { ScanProgress, Slot, WolfState } from "./state.ts";

/** Why no new position is opened now, and until when (null: until an operator acts). */
interface EntriesStopped {
  reason: "daily_loss_limit" | "risk_hard_stop" | "reduce_only" | "exchange_refused";
  detail: string;
  /** ISO time entries may resume on their own, or null. */
  until: string | null;
}

/** The contract's wolf-mode Status object (GET /api/status and each SSE event), plus the PnL breakdown. */
interface WolfStatus extends WolfPnl {
  /** Added field: set while the daily loss limit or an exchange refusal stops entries (exits still run). */
  entries_stopped: EntriesStopped | null;
  /** Added field: the market scans' progress in this run (null for a state saved before it existed). */
  scan: ScanProgress | null;
  status: "running";
  engine: "wolf";
  tick_count: number;
  daily_pnl: number;
  total_pnl: number;
  total_trades: number;
  max_slots: number;
  active_slots: {
    slot_id: number;
    instrument: string;
    side: string;
    entry_size: number;
    entry_price: number;
    roe_pct: number;
    dsl_phase: number;
    status: "active";
    /** Added field: the stop resting on the exchange for this slot, null when none was ever placed. */
    backstop: SlotBackstopStatus | null;
  }[];
  closed_slots: {
    slot_id: number;
    instrument: string;
    side: string;
    entry_size: number;
    entry_price: number;
    exit_price: number;
    realized_pnl: number;
    roe_pct: number;
    close_reason: string;
    dsl_phase: number;
    opened_at_ms: number;
    closed_at_ms: number;
  }[];
  positions: {
    slot: number;
    market: string;
    side: string;
    size: number;
    entry: number;
    roe: number;
    phase: number;
  }[];
}

/** A slot's exchange stop as /api/status shows it: "refused" and "none" mean unprotected. */
interface SlotBackstopStatus {
  status: "resting" | "refused" | "none";
  trigger_px: number;
  size: number;
  oid: number | null;
  cloid: string;
  updated_ms: number;
  message?: string;
}

function backstopStatus(s: Slot): SlotBackstopStatus | null {
  const b = s.backstop;
  if (!b) return null;
  return {
    status: b.status,
    trigger_px: num(b.triggerPx),
    size: num(b.size),
    oid: b.oid,
    cloid: b.cloid,
    updated_ms: b.updatedMs,
    ...(b.message ? { message: b.message } : {}),
  };
}

const open = (s: Slot) => s.status === "active" || s.status === "closing";

/**
 * Why WOLF opens nothing now: the daily loss limit (until the next UTC day; state.day is the day it
 * belongs to), or a refusal no entry can get past (until the run is restarted).
 */
function wolfEntriesStopped(state: WolfState): EntriesStopped | null {
  if (!state.daily_loss_triggered) {
    if (!state.entries_halted) return null;
    return { reason: "exchange_refused", detail: state.entries_halted, until: null };
  }
  const limit = state.config.daily_loss_limit;
  const dayStart = Date.parse(`${state.day}T00:00:00.000Z`);
  return {
    reason: "daily_loss_limit",
    detail: `daily PnL ${state.daily_pnl} reached the limit of -${typeof limit === "number" ? limit : "?"}`,
    until: Number.isFinite(dayStart) ? new Date(dayStart + 86_400_000).toISOString() : null,
  };
}

const roe2 = (x: number) => Math.round(x * 100) / 100;

/** Pure mapping state.json → contract shape, with the real side, ROE, DSL phase and slot count. */
export function wolfStatus(state: WolfState): WolfStatus {
  const active = state.slots.filter(open);
  const maxSlots = typeof state.config.max_slots === "number" ? state.config.max_slots : state.slots.length;
  return {
    status: "running",
    engine: "wolf",
    tick_count: state.tick_count,
    daily_pnl: num(state.daily_pnl, 2),
    total_pnl: num(state.total_pnl, 2),
    total_trades: state.total_trades,
    ...wolfPnl(state),
    entries_stopped: wolfEntriesStopped(state),
    scan: state.scan ? { ...state.scan } : null,
    max_slots: maxSlots,
    active_slots: active.map((s) => ({
      slot_id: s.slot_id,
      instrument: s.instrument,
      side: s.side,
      entry_size: num(s.entry_size),
      entry_price: num(s.entry_price),
      roe_pct: roe2(s.roe_pct),
      dsl_phase: s.dsl_phase,
      status: "active",
      backstop: backstopStatus(s),
    })),
    closed_slots: state.closed_slots.slice(-5).map((c) => ({
      slot_id: c.slot_id,
      instrument: c.instrument,
      side: c.side,
      entry_size: num(c.entry_size),
      entry_price: num(c.entry_price),
      exit_price: num(c.exit_price),
      realized_pnl: num(c.realized_pnl, 2),
      roe_pct: c.roe_pct,
      close_reason: c.close_reason,
      dsl_phase: c.dsl_phase,
      opened_at_ms: c.opened_at_ms,
      closed_at_ms: c.closed_at_ms,
    })),
    positions: active.map((s) => ({
      slot: s.slot_id,
      market: s.instrument,
      side: s.side,
      size: num(s.entry_size),
      entry: num(s.entry_price),
      roe: roe2(s.roe_pct),
      phase: s.dsl_phase,
    })),
  };
}

function phaseLabel(s: Slot): string {
  if (s.dsl_phase === 0) return "no guard";
  return s.dsl_phase === 1 ? "Phase 1" : `Phase 2 (tier ${s.dsl_tier})`;
}

/**
 * Plain-text status (`hl wolf status`, GET /status): header with the preset; tick / daily PnL /
 * slots-used line; one line per slot (market, side, size, entry, ROE, phase) or an empty-slot marker.
 */
export function wolfStatusText(state: WolfState): string {
  const used = state.slots.filter(open).length;
  const lines = [
    `WOLF Orchestrator — ${state.preset} preset`,
    `Tick: ${state.tick_count} | Daily PnL (realised): ${usd(state.daily_pnl)} | Total PnL (realised): ${usd(state.total_pnl)} | Slots: ${used}/${state.slots.length} | Trades: ${state.total_trades}`,
  ];
  const stopped = wolfEntriesStopped(state);
  if (stopped?.reason === "daily_loss_limit")
    lines.push(`** DAILY LOSS LIMIT TRIGGERED ** entries stopped until ${stopped.until ?? "further notice"}`);
  else if (stopped) lines.push(`** ENTRIES STOPPED ** ${stopped.detail}; until WOLF is restarted`);
  lines.push("");
  for (const s of state.slots) {
    if (!open(s)) {
      lines.push(`Slot ${s.slot_id}: (empty)`);
      continue;
    }
    const roe = `${s.roe_pct >= 0 ? "+" : ""}${s.roe_pct.toFixed(1)}%`;
    const closing = s.status === "closing" ? ` | CLOSING (${s.exit?.reason ?? ""})` : "";
    lines.push(
      `Slot ${s.slot_id}: ${s.instrument} ${s.side.toUpperCase()} ${s.entry_size} @ ${s.entry_price} | ROE: ${roe} | ${phaseLabel(s)}${closing}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

export const NO_STATE_TEXT = "No WOLF state found. Run 'hl wolf run' first.\n";
