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

export interface RunStopStep {
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

export function stepRunStop(
  configFor: RunStopConfig,
  ids: { positionId: string; instrument: string },
  prev: DslGuardFile | null,
  position: RunStopPosition,
  price: number,
  nowMs: number,
): RunStopStep {
  const qty = Number(position.qty);
  if (qty === 0 || !(position.entry > 0)) return { guard: null, close: null };
  const direction = qty > 0 ? "long" : "short";
  const config = configFor(direction);
  const size = position.qty.replace(/^-/, "");
  const state =
    prev && !prev.state.closed && prev.config.direction === direction
      ? { ...prev.state, entry_price: position.entry, position_size: size }
      : newDslState({
          position_id: ids.positionId,
          instrument: ids.instrument,
          entry_price: position.entry,
          position_size: size,
          nowMs,
        });
  const r = evaluateDsl(config, state, price, nowMs);
  return { guard: { state: r.state, config }, close: r.action === "close" ? { reason: r.reason } : null };
}
