import { D, dec, wire } from "../core/decimal.ts";
import { roePct } from "../guard/dsl.ts";
import { correlationGroup, type WolfConfig } from "./config.ts";
import type { Side, Slot, WolfState } from "./state.ts";

/**
 * The WOLF decision step, pure: state + this tick's prices, guard verdicts and signals → updated
 * slot tracking, exits (first) and entries. No I/O; the input state is not modified.
 */

interface SignalIn {
  asset: string;
  signal_type: string;
  direction: string;
  confidence: number;
}
interface ScannerIn {
  asset: string;
  direction: string;
  final_score: number;
}

export interface TickInputs {
  nowMs: number;
  /** coin → mid */
  prices: ReadonlyMap<string, number>;
  /** slot_id → the guard's close verdict this tick (reason), when it said close */
  dslCloses: ReadonlyMap<number, string>;
  movers: readonly SignalIn[];
  scanner: readonly ScannerIn[];
  smartMoney: readonly SignalIn[];
  /** Coins not to enter now (left alone after an exchange refusal). */
  blocked?: ReadonlySet<string>;
}

interface ExitPlan {
  slot_id: number;
  reason: string;
}

export interface EntryPlan {
  slot_id: number;
  coin: string;
  direction: Side;
  source: string;
  score: number;
  priority: number;
  reason: string;
}

interface TickPlan {
  slots: Slot[];
  exits: ExitPlan[];
  entries: EntryPlan[];
  daily_loss_triggered: boolean;
  unrealized_pnl: string;
}

const isOpen = (s: Slot) => s.status === "active" || s.status === "closing";
const sideOf = (d: string): Side => (d.toLowerCase() === "short" ? "short" : "long");
const signed = (x: number, dp: number) => `${x >= 0 ? "" : "-"}${Math.abs(x).toFixed(dp)}`;

/** Unrealized PnL of one open slot at `price` (gross, decimal). */
function unrealizedPnl(slot: Slot, price: number): InstanceType<typeof D> {
  if (!isOpen(slot) || !(price > 0)) return new D(0);
  const remaining = dec(slot.entry_size).minus(slot.exit ? slot.exit.filled_size : 0);
  const move = dec(price).minus(slot.entry_price);
  return (slot.side === "short" ? move.negated() : move).times(remaining);
}

/** Update price, ROE and high-water tracking of an open slot. */
export function trackSlot(slot: Slot, price: number | undefined, nowMs: number): Slot {
  if (!isOpen(slot) || price === undefined || !(price > 0)) return slot;
  const entry = Number(slot.entry_price);
  if (!(entry > 0) || slot.side === "") return slot;
  const roe = roePct(slot.side, entry, price, slot.leverage);
  const next = { ...slot, current_price: wire(price), roe_pct: roe };
  if (roe > slot.high_water_roe) {
    next.high_water_roe = roe;
    next.last_progress_ms = nowMs;
  }
  return next;
}

function stillSignalled(slot: Slot, inputs: TickInputs): boolean {
  const same = (asset: string, direction: string) => asset === slot.coin && sideOf(direction) === slot.side;
  return (
    inputs.movers.some((s) => same(s.asset, s.direction)) ||
    inputs.scanner.some((s) => same(s.asset, s.direction)) ||
    inputs.smartMoney.some((s) => same(s.asset, s.direction))
  );
}

/** The stops that need nothing but the slot's price: the DSL's verdict, then the hard stop on ROE. */
function stopExit(cfg: WolfConfig, slot: Slot, dslClose: string | undefined): string | null {
  if (dslClose !== undefined) return `dsl_close: ${dslClose}`;
  if (slot.roe_pct <= cfg.max_negative_roe) return `hard_stop: ROE ${signed(slot.roe_pct, 1)}%`;
  return null;
}

/** The time-based exits, read from the slot's own timestamps (the tick keeps the signal ones current). */
function timedExit(cfg: WolfConfig, slot: Slot, nowMs: number): string | null {
  if (slot.signal_disappeared_ms > 0 && slot.roe_pct < 0) {
    const minutes = (nowMs - slot.signal_disappeared_ms) / 60_000;
    if (minutes >= cfg.conviction_collapse_minutes)
      return `conviction_collapse: ${Math.floor(minutes)}min no signal, ROE=${signed(slot.roe_pct, 1)}%`;
  }
  if (slot.roe_pct >= cfg.stagnation_min_roe && slot.last_progress_ms > 0) {
    const minutes = (nowMs - slot.last_progress_ms) / 60_000;
    if (minutes >= cfg.stagnation_minutes)
      return `stagnation_tp: ROE=${signed(slot.roe_pct, 1)}% stuck for ${Math.floor(minutes)}min`;
  }
  return null;
}

/** Every exit that can be decided from one price (used on each streamed mid): stops first, then timed. */
export function priceExit(
  cfg: WolfConfig,
  slot: Slot,
  nowMs: number,
  dslClose: string | undefined,
): string | null {
  return stopExit(cfg, slot, dslClose) ?? timedExit(cfg, slot, nowMs);
}

/** Exit rules for one active slot, first match wins. Also maintains the signal timestamps. */
function exitRule(cfg: WolfConfig, slot: Slot, inputs: TickInputs): { slot: Slot; reason: string | null } {
  const now = inputs.nowMs;
  const stop = stopExit(cfg, slot, inputs.dslCloses.get(slot.slot_id));
  if (stop) return { slot, reason: stop };
  let s = slot;
  if (stillSignalled(slot, inputs)) {
    s = { ...s, last_signal_seen_ms: now, signal_disappeared_ms: 0 };
  } else if (s.signal_disappeared_ms === 0) {
    s = { ...s, signal_disappeared_ms: now };
  }
  return { slot: s, reason: timedExit(cfg, s, now) };
}

/** Realized PnL of the day plus every open slot's unrealized PnL at `priceOf` (its last price when unknown). */
export function dayLoss(
  state: Pick<WolfState, "daily_pnl">,
  slots: readonly Slot[],
  priceOf: (coin: string) => number | undefined,
): { dayPnl: InstanceType<typeof D>; unrealized: InstanceType<typeof D> } {
  const unrealized = slots.reduce(
    (sum, s) => sum.plus(unrealizedPnl(s, priceOf(s.coin) ?? Number(s.current_price))),
    new D(0),
  );
  return { dayPnl: dec(state.daily_pnl).plus(unrealized), unrealized };
}

interface Candidate {
  coin: string;
  direction: Side;
  source: string;
  score: number;
  priority: number;
}

/** Entry candidates from every source, best priority per coin, ordered by (priority, −score). */
export function entryCandidates(
  cfg: WolfConfig,
  inputs: TickInputs,
  held: ReadonlySet<string>,
  instrumentOf: (coin: string) => string,
): Candidate[] {
  const all: Candidate[] = [];
  for (const m of inputs.movers) {
    if (m.signal_type === "IMMEDIATE_MOVER") {
      if (cfg.movers_immediate_auto_entry && m.confidence >= cfg.movers_immediate_min_confidence) {
        all.push({
          coin: m.asset,
          direction: sideOf(m.direction),
          source: "movers_immediate",
          score: m.confidence,
          priority: 1,
        });
      }
    } else if (m.confidence >= cfg.movers_confidence_threshold) {
      all.push({
        coin: m.asset,
        direction: sideOf(m.direction),
        source: "movers_signal",
        score: m.confidence,
        priority: 3,
      });
    }
  }
  for (const s of inputs.smartMoney) {
    if (s.confidence < cfg.smart_money_confidence_threshold) continue;
    all.push({
      coin: s.asset,
      direction: sideOf(s.direction),
      source: `smart_money:${s.signal_type}`,
      score: s.confidence,
      priority: s.signal_type === "HIGH_CONVICTION" ? 1.5 : 2.5,
    });
  }
  for (const o of inputs.scanner) {
    if (o.final_score < cfg.scanner_score_threshold) continue;
    all.push({
      coin: o.asset,
      direction: sideOf(o.direction),
      source: "scanner",
      score: o.final_score,
      priority: 2,
    });
  }
  const excluded = new Set(cfg.excluded_instruments.map((i) => i.toUpperCase()));
  const best = new Map<string, Candidate>();
  for (const c of all) {
    if (
      held.has(c.coin) ||
      inputs.blocked?.has(c.coin) ||
      excluded.has(instrumentOf(c.coin).toUpperCase()) ||
      excluded.has(c.coin.toUpperCase())
    )
      continue;
    const prev = best.get(c.coin);
    if (!prev || c.priority < prev.priority || (c.priority === prev.priority && c.score > prev.score))
      best.set(c.coin, c);
  }
  return [...best.values()].sort((a, b) => a.priority - b.priority || b.score - a.score);
}

export function planTick(
  state: WolfState,
  cfg: WolfConfig,
  inputs: TickInputs,
  instrumentOf: (coin: string) => string,
): TickPlan {
  let slots = state.slots.map((s) => trackSlot(s, inputs.prices.get(s.coin), inputs.nowMs));
  const { dayPnl, unrealized } = dayLoss(state, slots, (c) => inputs.prices.get(c));
  const triggered = state.daily_loss_triggered || dayPnl.lte(-cfg.daily_loss_limit);

  if (triggered) {
    const exits = slots
      .filter((s) => s.status === "active")
      .map((s) => ({ slot_id: s.slot_id, reason: "daily_loss_limit" }));
    return { slots, exits, entries: [], daily_loss_triggered: true, unrealized_pnl: wire(unrealized) };
  }

  const exits: ExitPlan[] = [];
  slots = slots.map((s) => {
    if (s.status !== "active") return s;
    const r = exitRule(cfg, s, inputs);
    if (r.reason) exits.push({ slot_id: s.slot_id, reason: r.reason });
    return r.slot;
  });

  const exiting = new Set(exits.map((e) => e.slot_id));
  // A pending entry counts as held: nothing else is sent for its coin until it is resolved.
  const open = slots.filter((s) => isOpen(s) || s.status === "pending");
  const held = new Set(open.map((s) => s.coin));
  const dirCount = { long: 0, short: 0 };
  const groupCount = new Map<string, number>();
  for (const s of open) {
    if (s.side) dirCount[s.side]++;
    const g = correlationGroup(s.coin);
    if (g) groupCount.set(g, (groupCount.get(g) ?? 0) + 1);
  }
  // A slot whose exit is planned this tick is not reused until the close is confirmed.
  const free = slots.filter((s) => s.status === "empty" && !exiting.has(s.slot_id)).map((s) => s.slot_id);
  const entries: EntryPlan[] = [];
  for (const c of entryCandidates(cfg, inputs, held, instrumentOf)) {
    if (free.length === 0) break;
    // Pending entries of this tick count too: the limit is never exceeded, even within one tick.
    if (dirCount[c.direction] >= cfg.max_same_direction) continue;
    const group = correlationGroup(c.coin);
    if (group && (groupCount.get(group) ?? 0) >= cfg.max_correlated) continue;
    const slot_id = free.shift()!;
    entries.push({ slot_id, ...c, reason: `${c.source}: score=${c.score.toFixed(0)}` });
    dirCount[c.direction]++;
    if (group) groupCount.set(group, (groupCount.get(group) ?? 0) + 1);
  }
  return { slots, exits, entries, daily_loss_triggered: false, unrealized_pnl: wire(unrealized) };
}
