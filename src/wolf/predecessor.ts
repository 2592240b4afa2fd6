import { copyFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { dec, wire } from "../core/decimal.ts";
import { arrayOf, boolean, check, number, object, string, withDefault } from "../core/shape.ts";
import { instrumentToCoin } from "../exchange/symbols.ts";
import { readJson } from "../store/atomic.ts";
import {
  emptySlot,
  loadWolfState,
  parseWolfState,
  type Slot,
  type StateLoad,
  saveWolfState,
  statePath,
  utcDay,
  type WolfState,
  wolfDir,
} from "./state.ts";

/** The predecessor's WOLF state file: no `version`, numbers for money, `direction` and `*_ts` fields. */
interface PredecessorSlot {
  slot_id: number;
  status: string;
  instrument: string;
  direction: string;
  entry_source: string;
  entry_signal_score: number;
  entry_price: number;
  entry_size: number;
  margin_allocated: number;
  current_price: number;
  current_roe: number;
  high_water_roe: number;
  last_progress_ts: number;
  entry_ts: number;
  last_signal_seen_ts: number;
  signal_disappeared_ts: number;
}
interface PredecessorState {
  slots: PredecessorSlot[];
  tick_count: number;
  start_ts: number;
  daily_pnl: number;
  daily_loss_triggered: boolean;
  total_trades: number;
  total_pnl: number;
}

const zero = withDefault(number(), 0);
const blank = withDefault(string(), "");
const count = number({ int: true, min: 0 });
/** Loose: the predecessor's other fields are kept as they are (and ignored). */
const predecessorSlot = object<PredecessorSlot>(
  {
    slot_id: count,
    status: string(),
    instrument: blank,
    direction: blank,
    entry_source: blank,
    entry_signal_score: zero,
    entry_price: zero,
    entry_size: zero,
    margin_allocated: zero,
    current_price: zero,
    current_roe: zero,
    high_water_roe: zero,
    last_progress_ts: zero,
    entry_ts: zero,
    last_signal_seen_ts: zero,
    signal_disappeared_ts: zero,
  },
  { loose: true },
);
const predecessorState = object<PredecessorState>(
  {
    slots: arrayOf(predecessorSlot),
    tick_count: withDefault(count, 0),
    start_ts: zero,
    daily_pnl: zero,
    daily_loss_triggered: withDefault(boolean, false),
    total_trades: withDefault(count, 0),
    total_pnl: zero,
  },
  { loose: true },
);

/** Where the predecessor's file is kept once migrated. */
const PREDECESSOR_STATE_FILE = "state.predecessor.json";

const money = (v: number) => wire(dec(String(v)));

function slotOf(p: PredecessorSlot): Slot {
  const open =
    p.status === "active" && p.entry_size > 0 && (p.direction === "long" || p.direction === "short");
  if (!open) return emptySlot(p.slot_id);
  const notional = dec(String(p.entry_price)).times(String(p.entry_size));
  // The predecessor kept no leverage per slot: notional over margin is what the position carries.
  const leverage =
    p.margin_allocated > 0 ? Math.max(1, Math.round(notional.div(String(p.margin_allocated)).toNumber())) : 1;
  const slot: Slot = {
    ...emptySlot(p.slot_id),
    status: "active",
    instrument: p.instrument,
    coin: instrumentToCoin(p.instrument),
    side: p.direction as "long" | "short",
    entry_source: p.entry_source,
    entry_signal_score: p.entry_signal_score,
    entry_price: money(p.entry_price),
    entry_size: money(p.entry_size),
    margin_allocated: money(p.margin_allocated),
    leverage,
    current_price: money(p.current_price || p.entry_price),
    roe_pct: p.current_roe,
    high_water_roe: p.high_water_roe,
    dsl_phase: 1,
    opened_at_ms: p.entry_ts,
    last_progress_ms: p.last_progress_ts || p.entry_ts,
    last_signal_seen_ms: p.last_signal_seen_ts,
    signal_disappeared_ms: p.signal_disappeared_ts,
  };
  slot.dsl_position_id = `wolf-${slot.slot_id}-${slot.opened_at_ms}`;
  return slot;
}

/** A predecessor WOLF state as this project's state (pure); null when `raw` is not one. */
function fromPredecessorState(raw: unknown, nowMs: number): WolfState | null {
  if (typeof raw !== "object" || raw === null || "version" in raw) return null;
  const parsed = check(predecessorState, raw);
  if (!parsed.ok) return null;
  const p = parsed.value;
  const slots = [...p.slots].sort((a, b) => a.slot_id - b.slot_id).map(slotOf);
  const lastSeen = Math.max(p.start_ts, ...p.slots.map((s) => s.last_signal_seen_ts));
  return {
    version: 1,
    preset: "default",
    config: { max_slots: slots.length },
    tick_count: p.tick_count,
    slots,
    closed_slots: [],
    daily_pnl: money(p.daily_pnl),
    daily_loss_triggered: p.daily_loss_triggered,
    // The day its daily PnL belongs to: the last day it was seen running.
    day: utcDay(lastSeen > 0 ? lastSeen : nowMs),
    total_pnl: money(p.total_pnl),
    total_trades: p.total_trades,
    start_ms: p.start_ts || nowMs,
    updated_ms: nowMs,
    last_review_tick: 0,
    last_review_day: "",
  };
}

/** Either format, for readers (status, dashboard): this project's state, or null when neither. */
export function parseAnyWolfState(raw: unknown, nowMs: number = Date.now()): WolfState | null {
  const ours = parseWolfState(raw);
  return ours.ok ? ours.value : fromPredecessorState(raw, nowMs);
}

/**
 * For readers (`hl wolf status`): a predecessor `wolf/state.json` not yet migrated is shown as the
 * state it will become, and left untouched (the first run migrates it, keeping the original).
 */
export function loadAnyWolfState(dataDir: string, nowMs: number = Date.now()): StateLoad {
  const r = readJson<unknown>(statePath(dataDir));
  if (r.kind === "ok" && !parseWolfState(r.value).ok) {
    const state = fromPredecessorState(r.value, nowMs);
    if (state) return { kind: "ok", state };
  }
  return loadWolfState(dataDir);
}

/**
 * Before a WOLF run: a predecessor `wolf/state.json` is kept beside as `state.predecessor.json`
 * and replaced by the same state in this project's format. Returns the kept file's path, or null
 * when there was nothing to migrate.
 */
export function migratePredecessorWolfState(dataDir: string, nowMs: number): string | null {
  const r = readJson<unknown>(statePath(dataDir));
  if (r.kind !== "ok") return null;
  const state = fromPredecessorState(r.value, nowMs);
  if (!state) return null;
  const kept = join(wolfDir(dataDir), PREDECESSOR_STATE_FILE);
  if (!existsSync(kept)) copyFileSync(statePath(dataDir), kept);
  saveWolfState(dataDir, state);
  return kept;
}
