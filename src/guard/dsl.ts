import type { Direction, DslConfig } from "./config.ts";

/**
 * DSL ("dynamic stop loss") trailing stop as pure functions: (config, state, price, now) → decision.
 *
 * Prices here are JS numbers on purpose: the guard runs on every streamed mid (budget < 20 µs per
 * update), and it only compares a fresh price with floors derived afresh from the entry and the high
 * water — nothing is accumulated, so there is no drift to guard against. Sizes stay decimal strings.
 */

export interface DslState {
  position_id: string;
  instrument: string;
  entry_price: number;
  /** Decimal string: the guarded quantity, informational for the guard itself. */
  position_size: string;
  /** Long: highest price seen; short: lowest price seen. */
  high_water: number;
  high_water_ts: number;
  /** −1 = phase 1; ≥ 0 = phase 2 at that tier. Tiers only ratchet upwards. */
  tier_index: number;
  breach_count: number;
  /** When breach_count last changed (rate-limits counting to one per breach_interval_ms). */
  breach_ts: number;
  current_roe: number;
  created_ts: number;
  last_check_ts: number;
  closed: boolean;
  close_reason: string;
  close_price: number;
  close_ts: number;
}

type DslAction = "hold" | "close" | "tier_changed";

export interface DslResult {
  action: DslAction;
  reason: string;
  state: DslState;
  phase: 1 | 2;
  tier_index: number;
  roe_pct: number;
  effective_floor: number;
  trailing_floor: number;
  tier_floor: number;
}

export function newDslState(args: {
  position_id: string;
  instrument: string;
  entry_price: number;
  position_size: string;
  nowMs: number;
}): DslState {
  if (!(args.entry_price > 0))
    throw new Error(`DSL guard needs a positive entry price, got ${args.entry_price}`);
  return {
    position_id: args.position_id,
    instrument: args.instrument,
    entry_price: args.entry_price,
    position_size: args.position_size,
    high_water: args.entry_price,
    high_water_ts: args.nowMs,
    tier_index: -1,
    breach_count: 0,
    breach_ts: 0,
    current_roe: 0,
    created_ts: args.nowMs,
    last_check_ts: args.nowMs,
    closed: false,
    close_reason: "",
    close_price: 0,
    close_ts: 0,
  };
}

/** Return on margin, in percent, of a position entered at `entry` now marked at `price`. */
export function roePct(direction: Direction, entry: number, price: number, leverage: number): number {
  if (!(entry > 0) || !(leverage > 0)) return 0;
  const move = direction === "long" ? price - entry : entry - price;
  return (move / entry) * leverage * 100;
}

/** The price at which a position shows `lockPct` ROE. */
export function tierFloorPrice(
  direction: Direction,
  entry: number,
  lockPct: number,
  leverage: number,
): number {
  const delta = lockPct / 100 / leverage;
  return direction === "long" ? entry * (1 + delta) : entry * (1 - delta);
}

function trailingFloorPrice(direction: Direction, highWater: number, retrace: number): number {
  return direction === "long" ? highWater * (1 - retrace) : highWater * (1 + retrace);
}

function isBreach(direction: Direction, price: number, floor: number): boolean {
  return direction === "long" ? price <= floor : price >= floor;
}

/** The more protective of two floors: the higher for a long, the lower for a short. */
function tighter(direction: Direction, a: number, b: number): number {
  return direction === "long" ? Math.max(a, b) : Math.min(a, b);
}

const f4 = (x: number) => x.toFixed(4);
const f1 = (x: number) => x.toFixed(1);

/** Count a breach (at most one per interval) or decay the count; returns the updated count fields. */
function countBreach(cfg: DslConfig, s: DslState, breached: boolean, nowMs: number): void {
  const intervalPassed = nowMs - s.breach_ts >= cfg.breach_interval_ms;
  if (breached) {
    if (s.breach_count === 0 || intervalPassed) {
      s.breach_count += 1;
      s.breach_ts = nowMs;
    }
  } else if (s.breach_count > 0) {
    if (cfg.breach_decay_mode === "hard") {
      s.breach_count = 0;
      s.breach_ts = nowMs;
    } else if (intervalPassed) {
      s.breach_count -= 1;
      s.breach_ts = nowMs;
    }
  }
}

/** Evaluate one price. The input state is not modified; the result carries the new state. */
export function evaluateDsl(cfg: DslConfig, prev: DslState, price: number, nowMs: number): DslResult {
  const s: DslState = { ...prev, last_check_ts: nowMs };
  const dir = cfg.direction;
  const lev = cfg.leverage;
  const entry = s.entry_price;

  if (!(price > 0) || s.closed) {
    const phase = s.tier_index < 0 ? 1 : 2;
    return {
      action: "hold",
      reason: s.closed ? "guard closed" : "no price",
      state: s,
      phase,
      tier_index: s.tier_index,
      roe_pct: s.current_roe,
      effective_floor: 0,
      trailing_floor: 0,
      tier_floor: 0,
    };
  }

  if (dir === "long" ? price > s.high_water : price < s.high_water || !(s.high_water > 0)) {
    s.high_water = price;
    s.high_water_ts = nowMs;
  }
  const roe = roePct(dir, entry, price, lev);
  s.current_roe = roe;

  // Ratchet: from phase 1 into phase 2 and up through every tier the ROE has reached.
  const fromTier = s.tier_index;
  while (s.tier_index + 1 < cfg.tiers.length && roe >= cfg.tiers[s.tier_index + 1]!.trigger_pct) {
    s.tier_index += 1;
    s.breach_count = 0;
    s.breach_ts = 0;
  }
  const tierChanged = s.tier_index !== fromTier;

  if (s.tier_index < 0) {
    const trailing = trailingFloorPrice(dir, s.high_water, cfg.phase1_retrace);
    const effective =
      cfg.phase1_absolute_floor > 0 ? tighter(dir, trailing, cfg.phase1_absolute_floor) : trailing;
    countBreach(cfg, s, isBreach(dir, price, effective), nowMs);
    const base = { state: s, phase: 1 as const, tier_index: -1, roe_pct: roe, effective_floor: effective };
    if (s.breach_count >= cfg.phase1_max_breaches) {
      return {
        ...base,
        action: "close",
        reason: `Phase 1 close: ${s.breach_count}/${cfg.phase1_max_breaches} breaches, price=${f4(price)}, floor=${f4(effective)}`,
        trailing_floor: trailing,
        tier_floor: 0,
      };
    }
    return {
      ...base,
      action: "hold",
      reason: `Phase 1: ROE=${f1(roe)}%, HW=${f4(s.high_water)}, breaches=${s.breach_count}`,
      trailing_floor: trailing,
      tier_floor: 0,
    };
  }

  const tier = cfg.tiers[s.tier_index]!;
  const tierFloor = tierFloorPrice(dir, entry, tier.lock_pct, lev);
  const trailing = trailingFloorPrice(dir, s.high_water, tier.retrace ?? cfg.phase2_retrace);
  const effective = tighter(dir, tierFloor, trailing);
  const base = {
    state: s,
    phase: 2 as const,
    tier_index: s.tier_index,
    roe_pct: roe,
    effective_floor: effective,
    trailing_floor: trailing,
    tier_floor: tierFloor,
  };

  if (
    cfg.stagnation_enabled &&
    roe >= cfg.stagnation_min_roe &&
    nowMs - s.high_water_ts >= cfg.stagnation_timeout_ms
  ) {
    const staleS = Math.floor((nowMs - s.high_water_ts) / 1000);
    return {
      ...base,
      action: "close",
      reason: `Stagnation TP: ROE=${f1(roe)}% >= ${f1(cfg.stagnation_min_roe)}%, HW stale ${staleS}s`,
    };
  }
  if (tierChanged) {
    const label =
      fromTier < 0
        ? `Phase 1->2: tier ${s.tier_index} activated`
        : `Tier upgrade: ${fromTier}->${s.tier_index}`;
    return {
      ...base,
      action: "tier_changed",
      reason: `${label} (ROE ${f1(roe)}% >= ${f1(tier.trigger_pct)}%)`,
    };
  }
  const maxBreaches = tier.max_breaches ?? cfg.phase2_max_breaches;
  countBreach(cfg, s, isBreach(dir, price, effective), nowMs);
  if (s.breach_count >= maxBreaches) {
    return {
      ...base,
      action: "close",
      reason: `Phase 2 close: tier ${s.tier_index}, ${s.breach_count}/${maxBreaches} breaches, price=${f4(price)}, floor=${f4(effective)}`,
    };
  }
  return {
    ...base,
    action: "hold",
    reason: `Phase 2: tier ${s.tier_index}, ROE=${f1(roe)}%, HW=${f4(s.high_water)}, breaches=${s.breach_count}`,
  };
}

/** Record that the guarded position was closed (after the exchange confirmed the fill). */
export function markDslClosed(s: DslState, price: number, reason: string, nowMs: number): DslState {
  return { ...s, closed: true, close_reason: reason, close_price: price, close_ts: nowMs };
}

/**
 * The guard's effective floor now, as a price (what a breach is measured against), without
 * evaluating a new price: for the exchange backstop, which rests beyond it.
 */
export function dslFloor(cfg: DslConfig, s: DslState): number {
  const dir = cfg.direction;
  if (s.tier_index < 0) {
    const trailing = trailingFloorPrice(dir, s.high_water, cfg.phase1_retrace);
    return cfg.phase1_absolute_floor > 0 ? tighter(dir, trailing, cfg.phase1_absolute_floor) : trailing;
  }
  const tier = cfg.tiers[s.tier_index]!;
  const tierFloor = tierFloorPrice(dir, s.entry_price, tier.lock_pct, cfg.leverage);
  return tighter(dir, tierFloor, trailingFloorPrice(dir, s.high_water, tier.retrace ?? cfg.phase2_retrace));
}

/** The price at which a position shows `roe` percent ROE at `leverage` (e.g. the hard stop at −5 %). */
export function priceAtRoe(direction: Direction, entry: number, roe: number, leverage: number): number {
  return tierFloorPrice(direction, entry, roe, leverage);
}
