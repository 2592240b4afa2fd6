import { join } from "node:path";
import { z } from "zod";
import { UserError } from "../core/errors.ts";
import { readJson, writeFileAtomic } from "../store/atomic.ts";
import type { WolfConfig } from "./config.ts";

/**
 * WOLF's persisted state (`$DATA_DIR/wolf/state.json`). Money is decimal strings; ROE and scores are
 * plain numbers. Every per-position field is reset when a slot is (re)filled.
 */

export const sideSchema = z.enum(["long", "short"]);
export type Side = z.infer<typeof sideSchema>;

/** An exit in progress: reduce-only IOCs until the whole position is confirmed filled. */
export const pendingExitSchema = z.object({
  reason: z.string(),
  requested_at_ms: z.number(),
  filled_size: z.string(),
  /** Σ price × size of the exit fills so far */
  filled_notional: z.string(),
  fees: z.string(),
  attempts: z.number().int(),
});
export type PendingExit = z.infer<typeof pendingExitSchema>;

export const slotSchema = z.object({
  slot_id: z.number().int().min(0),
  /** empty → (pending →) active → (closing →) empty; pending: an entry whose outcome is not known yet */
  status: z.enum(["empty", "pending", "active", "closing"]),
  instrument: z.string(),
  coin: z.string(),
  side: z.union([sideSchema, z.literal("")]),
  entry_source: z.string(),
  entry_signal_score: z.number(),
  entry_price: z.string(),
  entry_size: z.string(),
  entry_fee: z.string(),
  margin_allocated: z.string(),
  leverage: z.number(),
  current_price: z.string(),
  roe_pct: z.number(),
  high_water_roe: z.number(),
  /** 0 = no guard, 1 = phase 1, 2 = phase 2 */
  dsl_phase: z.number().int().min(0).max(2),
  dsl_tier: z.number().int(),
  dsl_position_id: z.string(),
  /** The DSL preset and leverage the guard was opened with: a rebuilt guard keeps them (added field). */
  dsl_preset: z.string().optional(),
  dsl_leverage: z.number().positive().optional(),
  /** The guard's breach count as last seen, so a rebuilt guard does not start the count over. */
  dsl_breaches: z.number().int().min(0).optional(),
  opened_at_ms: z.number(),
  last_progress_ms: z.number(),
  last_signal_seen_ms: z.number(),
  signal_disappeared_ms: z.number(),
  exit: pendingExitSchema.nullable(),
  /**
   * The stop resting on the exchange for this position (added field): `refused` means the exchange
   * would not take it, and the position is unprotected whenever this process is not running.
   */
  backstop: z
    .object({
      status: z.enum(["resting", "refused", "none"]),
      cloid: z.string(),
      oid: z.number().int().nullable(),
      triggerPx: z.string(),
      size: z.string(),
      updatedMs: z.number(),
      message: z.string().optional(),
    })
    .optional(),
  /** The entry order of a pending slot, until the exchange says what became of it. */
  pending_order: z
    .object({
      cloid: z.string().regex(/^0x[0-9a-fA-F]{32}$/),
      sent_at_ms: z.number(),
      expires_after_ms: z.number(),
      order: z.record(z.string(), z.unknown()),
    })
    .nullable()
    .optional(),
});
export type Slot = z.infer<typeof slotSchema>;

export const closedSlotSchema = z.object({
  slot_id: z.number().int(),
  instrument: z.string(),
  side: sideSchema,
  entry_size: z.string(),
  entry_price: z.string(),
  exit_price: z.string(),
  realized_pnl: z.string(),
  roe_pct: z.number(),
  close_reason: z.string(),
  dsl_phase: z.number().int(),
  opened_at_ms: z.number(),
  closed_at_ms: z.number(),
  entry_source: z.string(),
  fees: z.string(),
});
export type ClosedSlot = z.infer<typeof closedSlotSchema>;

/**
 * daily_pnl and total_pnl are floats in the contract: the file carries them as JSON numbers (written
 * with the decimal's exact digits); in memory they stay decimal strings. A file from an older version
 * (strings) still reads.
 */
function pnlField() {
  return z.union([z.string(), z.number()]).transform((v) => String(v));
}

export const wolfStateSchema = z.object({
  version: z.literal(1),
  preset: z.string(),
  config: z.record(z.string(), z.unknown()),
  tick_count: z.number().int().min(0),
  slots: z.array(slotSchema),
  closed_slots: z.array(closedSlotSchema),
  daily_pnl: pnlField(),
  daily_loss_triggered: z.boolean(),
  /** UTC date (YYYY-MM-DD) the daily figures belong to; persisted so a restart never resets twice. */
  day: z.string(),
  total_pnl: pnlField(),
  total_trades: z.number().int().min(0),
  start_ms: z.number(),
  updated_ms: z.number(),
  last_review_tick: z.number().int(),
  last_review_day: z.string(),
  /** "degraded" while streamed prices fail and guarded coins are polled instead (shown in /health). */
  price_stream: z.enum(["ok", "degraded"]).optional(),
  /** Guarded coins whose own stream is silent and that are polled instead (/health's price_stream_degraded_coins). */
  price_stream_coins: z.array(z.string()).optional(),
  /** Set when an exchange refusal means no entry can succeed in this run (cleared when a run starts). */
  entries_halted: z.string().optional(),
});
export type WolfState = z.infer<typeof wolfStateSchema>;

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
  const parsed = wolfStateSchema.safeParse(r.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UserError(
      `${path} is not a WOLF state (${issue?.path.join(".")}: ${issue?.message}); move it aside to start fresh`,
    );
  }
  return { kind: "ok", state: parsed.data };
}

export function saveWolfState(dataDir: string, state: WolfState): void {
  const text = JSON.stringify(state, null, 2).replace(
    /^( {2}"(?:daily_pnl|total_pnl)": )"(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)"/gm,
    "$1$2",
  );
  writeFileAtomic(statePath(dataDir), `${text}\n`);
}
