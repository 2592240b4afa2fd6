import { type DslConfig, type DslConfigInput, dslConfigFromPreset } from "./config.ts";
import { evaluateDsl, newDslState } from "./dsl.ts";
import type { DslGuardFile } from "./store.ts";

/**
 * A DSL trailing stop over a strategy run's own position (pure): the guard follows whatever the
 * engine holds — a new guard when a position opens or flips side, entry and size kept current while
 * it is added to or reduced, none while flat — and says when to flatten it.
 */
export interface RunStopPosition {
  /** Signed quantity (decimal string); zero = flat. */
  qty: string;
  /** Average entry price. */
  entry: number;
}

interface RunStopStep {
  /** The guard after this price (null while flat: nothing to guard). */
  guard: DslGuardFile | null;
  /** Set when the position must be closed now. */
  close: { reason: string } | null;
}

export type RunStopConfig = (direction: "long" | "short") => DslConfig;

/** The run's stop config: a preset with overrides; the direction is the position's. */
export function runStopConfig(preset: string, overrides: Partial<DslConfigInput> = {}): RunStopConfig {
  const { direction: _fromPosition, ...rest } = overrides;
  const leverage = rest.leverage ?? 10;
  // Built once up front, so a bad preset or override is refused before the first order.
  dslConfigFromPreset(preset, { ...rest, direction: "long", leverage });
  return (direction) => dslConfigFromPreset(preset, { ...rest, direction, leverage });
}

/**
 * The guard of the position as it now stands, with no price judged: a new one when it opened or
 * flipped side, entry and size brought up to date otherwise, null while flat. What a fill changes
 * between two prices (the exchange stop follows it at once).
 */
export function followRunStop(
  configFor: RunStopConfig,
  ids: { positionId: string; instrument: string },
  prev: DslGuardFile | null,
  position: RunStopPosition,
  nowMs: number,
): DslGuardFile | null {
  const qty = Number(position.qty);
  if (qty === 0 || !(position.entry > 0)) return null;
  const direction = qty > 0 ? "long" : "short";
  const size = position.qty.replace(/^-/, "");
  const config = configFor(direction);
  if (prev && !prev.state.closed && prev.config.direction === direction)
    return { config, state: { ...prev.state, entry_price: position.entry, position_size: size } };
  return {
    config,
    state: newDslState({
      position_id: ids.positionId,
      instrument: ids.instrument,
      entry_price: position.entry,
      position_size: size,
      nowMs,
    }),
  };
}

export function stepRunStop(
  configFor: RunStopConfig,
  ids: { positionId: string; instrument: string },
  prev: DslGuardFile | null,
  position: RunStopPosition,
  price: number,
  nowMs: number,
): RunStopStep {
  const guard = followRunStop(configFor, ids, prev, position, nowMs);
  if (!guard) return { guard: null, close: null };
  const r = evaluateDsl(guard.config, guard.state, price, nowMs);
  return {
    guard: { state: r.state, config: guard.config },
    close: r.action === "close" ? { reason: r.reason } : null,
  };
}
