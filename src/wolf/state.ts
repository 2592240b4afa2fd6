import { join } from "node:path";
import { UserError } from "../core/errors.ts";
import {
  anyObject,
  arrayOf,
  boolean,
  type Checked,
  check,
  nullable,
  number,
  object,
  oneOf,
  optional,
  type Shape,
  string,
} from "../core/shape.ts";
import { readJson, writeFileAtomic } from "../store/atomic.ts";
import type { WolfConfig } from "./config.ts";

/**
 * WOLF's persisted state (`$DATA_DIR/wolf/state.json`). Money is decimal strings; ROE and scores are
 * plain numbers. Every per-position field is reset when a slot is (re)filled.
 */

export type Side = "long" | "short";
const side = oneOf("long", "short");

/** An exit in progress: reduce-only IOCs until the whole position is confirmed filled. */
export interface PendingExit {
  reason: string;
  requested_at_ms: number;
  filled_size: string;
  /** Σ price × size of the exit fills so far */
  filled_notional: string;
  fees: string;
  attempts: number;
}

/**
 * The stop resting on the exchange for a position (added field): `refused` means the exchange would
 * not take it, and the position is unprotected whenever this process is not running.
 */
interface Backstop {
  status: "resting" | "refused" | "none";
  cloid: string;
  oid: number | null;
  triggerPx: string;
  size: string;
  updatedMs: number;
  message?: string;
}

/** The entry order of a pending slot, until the exchange says what became of it. */
interface PendingOrder {
  cloid: string;
  sent_at_ms: number;
  expires_after_ms: number;
  order: Record<string, unknown>;
}

export interface Slot {
  slot_id: number;
  /** empty → (pending →) active → (closing →) empty; pending: an entry whose outcome is not known yet */
  status: "empty" | "pending" | "active" | "closing";
  instrument: string;
  coin: string;
  side: Side | "";
  entry_source: string;
  entry_signal_score: number;
  entry_price: string;
  entry_size: string;
  entry_fee: string;
  margin_allocated: string;
  leverage: number;
  current_price: string;
  roe_pct: number;
  high_water_roe: number;
  /** 0 = no guard, 1 = phase 1, 2 = phase 2 */
  dsl_phase: number;
  dsl_tier: number;
  dsl_position_id: string;
  /** The DSL preset and leverage the guard was opened with: a rebuilt guard keeps them (added field). */
  dsl_preset?: string;
  dsl_leverage?: number;
  /** The guard's breach count as last seen, so a rebuilt guard does not start the count over. */
  dsl_breaches?: number;
  opened_at_ms: number;
  last_progress_ms: number;
  last_signal_seen_ms: number;
  signal_disappeared_ms: number;
  exit: PendingExit | null;
  backstop?: Backstop;
  pending_order?: PendingOrder | null;
}

export interface ClosedSlot {
  slot_id: number;
  instrument: string;
  side: Side;
  entry_size: string;
  entry_price: string;
  exit_price: string;
  realized_pnl: string;
  roe_pct: number;
  close_reason: string;
  dsl_phase: number;
  opened_at_ms: number;
  closed_at_ms: number;
  entry_source: string;
  fees: string;
}

export interface WolfState {
  version: 1;
  preset: string;
  config: Record<string, unknown>;
  tick_count: number;
  slots: Slot[];
  closed_slots: ClosedSlot[];
  /** Decimal strings in memory (see `pnl` below). */
  daily_pnl: string;
  daily_loss_triggered: boolean;
  /** UTC date (YYYY-MM-DD) the daily figures belong to; persisted so a restart never resets twice. */
  day: string;
  total_pnl: string;
  total_trades: number;
  start_ms: number;
  updated_ms: number;
  last_review_tick: number;
  last_review_day: string;
  /** "degraded" while streamed prices fail and guarded coins are polled instead (shown in /health). */
  price_stream?: "ok" | "degraded";
  /** Guarded coins whose own stream is silent and that are polled instead (/health's price_stream_degraded_coins). */
  price_stream_coins?: string[];
  /** Set when an exchange refusal means no entry can succeed in this run (cleared when a run starts). */
  entries_halted?: string;
  /** The market scans' progress in this run (added field; shown while WOLF cannot open a slot yet). */
  scan?: ScanProgress;
}

/**
 * Counted by the runner, never estimated: `first_scan` until this run's first scanner and movers
 * passes have finished; the series counts are those of the passes in flight (or last finished).
 */
export interface ScanProgress {
  phase: "first_scan" | "ready";
  /** Candle series the current passes have read so far (paced by the request-weight budget). */
  series_read: number;
  /** Candle series the current passes will read (0 until they know the market list). */
  series_total: number;
  /** When the last scanner pass finished, or null before one has. */
  last_scan_ms: number | null;
  /** Entry candidates (scanner opportunities + movers signals) the last finished passes found. */
  signals: number;
}

const text = string();
const anyNumber = number();
const int = number({ int: true });
const count = number({ int: true, min: 0 });

const pendingExit = object<PendingExit>({
  reason: text,
  requested_at_ms: anyNumber,
  filled_size: text,
  filled_notional: text,
  fees: text,
  attempts: int,
});

const backstop = object<Backstop>({
  status: oneOf("resting", "refused", "none"),
  cloid: text,
  oid: nullable(int),
  triggerPx: text,
  size: text,
  updatedMs: anyNumber,
  message: optional(text),
});

const pendingOrder = object<PendingOrder>({
  cloid: string(/^0x[0-9a-fA-F]{32}$/),
  sent_at_ms: anyNumber,
  expires_after_ms: anyNumber,
  order: anyObject,
});

const slot = object<Slot>({
  slot_id: count,
  status: oneOf("empty", "pending", "active", "closing"),
  instrument: text,
  coin: text,
  side: oneOf("long", "short", ""),
  entry_source: text,
  entry_signal_score: anyNumber,
  entry_price: text,
  entry_size: text,
  entry_fee: text,
  margin_allocated: text,
  leverage: anyNumber,
  current_price: text,
  roe_pct: anyNumber,
  high_water_roe: anyNumber,
  dsl_phase: number({ int: true, min: 0, max: 2 }),
  dsl_tier: int,
  dsl_position_id: text,
  dsl_preset: optional(text),
  dsl_leverage: optional(number({ positive: true })),
  dsl_breaches: optional(count),
  opened_at_ms: anyNumber,
  last_progress_ms: anyNumber,
  last_signal_seen_ms: anyNumber,
  signal_disappeared_ms: anyNumber,
  exit: nullable(pendingExit),
  backstop: optional(backstop),
  pending_order: optional(nullable(pendingOrder)),
});

const closedSlot = object<ClosedSlot>({
  slot_id: int,
  instrument: text,
  side,
  entry_size: text,
  entry_price: text,
  exit_price: text,
  realized_pnl: text,
  roe_pct: anyNumber,
  close_reason: text,
  dsl_phase: int,
  opened_at_ms: anyNumber,
  closed_at_ms: anyNumber,
  entry_source: text,
  fees: text,
});

/**
 * daily_pnl and total_pnl are floats in the contract: the file carries them as JSON numbers (written
 * with the decimal's exact digits); in memory they stay decimal strings. A file from an older version
 * (strings) still reads.
 */
const pnl: Shape<string> = (v, path) => {
  if (typeof v === "string") return v;
  return String(anyNumber(v, path));
};

const wolfState = object<WolfState>({
  version: oneOf(1),
  preset: text,
  config: anyObject,
  tick_count: count,
  slots: arrayOf(slot),
  closed_slots: arrayOf(closedSlot),
  daily_pnl: pnl,
  daily_loss_triggered: boolean,
  day: text,
  total_pnl: pnl,
  total_trades: count,
  start_ms: anyNumber,
  updated_ms: anyNumber,
  last_review_tick: int,
  last_review_day: text,
  price_stream: optional(oneOf("ok", "degraded")),
  price_stream_coins: optional(arrayOf(text)),
  entries_halted: optional(text),
  scan: optional(
    object<ScanProgress>({
      phase: oneOf("first_scan", "ready"),
      series_read: count,
      series_total: count,
      last_scan_ms: nullable(anyNumber),
      signals: count,
    }),
  ),
});

/** `raw` (parsed JSON) checked as a WOLF state: a typed copy, or the first field that does not fit. */
export function parseWolfState(raw: unknown): Checked<WolfState> {
  return check(wolfState, raw);
}

export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function emptySlot(slot_id: number): Slot {
  return {
    slot_id,
    status: "empty",
    instrument: "",
    coin: "",
    side: "",
    entry_source: "",
    entry_signal_score: 0,
    entry_price: "0",
    entry_size: "0",
    entry_fee: "0",
    margin_allocated: "0",
    leverage: 0,
    current_price: "0",
    roe_pct: 0,
    high_water_roe: 0,
    dsl_phase: 0,
    dsl_tier: -1,
    dsl_position_id: "",
    opened_at_ms: 0,
    last_progress_ms: 0,
    last_signal_seen_ms: 0,
    signal_disappeared_ms: 0,
    exit: null,
  };
}

export function freshState(preset: string, config: WolfConfig, nowMs: number): WolfState {
  return {
    version: 1,
    preset,
    config: { ...config },
    tick_count: 0,
    slots: Array.from({ length: config.max_slots }, (_, i) => emptySlot(i)),
    closed_slots: [],
    daily_pnl: "0",
    daily_loss_triggered: false,
    day: utcDay(nowMs),
    total_pnl: "0",
    total_trades: 0,
    start_ms: nowMs,
    updated_ms: nowMs,
    last_review_tick: 0,
    last_review_day: "",
  };
}

/**
 * Match the slot array to max_slots: add empty slots, drop trailing EMPTY ones only (an occupied
 * slot is kept until its position is closed).
 */
export function resizeSlots(slots: readonly Slot[], maxSlots: number): Slot[] {
  const out = [...slots];
  while (out.length < maxSlots) out.push(emptySlot(out.length));
  while (out.length > maxSlots && out.at(-1)!.status === "empty") out.pop();
  return out;
}

export const wolfDir = (dataDir: string) => join(dataDir, "wolf");
export const statePath = (dataDir: string) => join(wolfDir(dataDir), "state.json");
export const tradesPath = (dataDir: string) => join(wolfDir(dataDir), "trades.jsonl");
export const dslDir = (dataDir: string) => join(wolfDir(dataDir), "dsl");

export type StateLoad = { kind: "missing" } | { kind: "ok"; state: WolfState };

/** Load state.json; a corrupt or invalid file is an error (positions may be open), never "no state". */
export function loadWolfState(dataDir: string): StateLoad {
  const path = statePath(dataDir);
  const r = readJson<unknown>(path);
  if (r.kind === "missing") return r;
  if (r.kind === "corrupt") {
    throw new UserError(
      `${path} is corrupt (${r.error}); fix or move it aside before starting WOLF — positions may be open`,
    );
  }
  const parsed = parseWolfState(r.value);
  if (!parsed.ok) {
    throw new UserError(
      `${path} is not a WOLF state (${parsed.path.join(".")}: expected ${parsed.expected}); move it aside to start fresh`,
    );
  }
  return { kind: "ok", state: parsed.value };
}

export function saveWolfState(dataDir: string, state: WolfState): void {
  const text = JSON.stringify(state, null, 2).replace(
    /^( {2}"(?:daily_pnl|total_pnl)": )"(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)"/gm,
    "$1$2",
  );
  writeFileAtomic(statePath(dataDir), `${text}\n`);
}
