import { D, dec, wire } from "../core/decimal.ts";
import { roePct } from "../guard/dsl.ts";
import type { ClosedSlot, PendingExit, Slot } from "./state.ts";

/** Entry size: margin × leverage / mid, rounded DOWN to the asset's size decimals; null below the minimum. */
export function entrySize(
  marginUsd: number,
  leverage: number,
  mid: number,
  szDecimals: number,
  minOrderUsd: number,
): string | null {
  if (!(mid > 0)) return null;
  const size = dec(marginUsd).times(leverage).div(mid).toDecimalPlaces(szDecimals, D.ROUND_DOWN);
  if (size.lte(0) || size.times(mid).lt(minOrderUsd)) return null;
  return wire(size);
}

export function startExit(reason: string, nowMs: number): PendingExit {
  return { reason, requested_at_ms: nowMs, filled_size: "0", filled_notional: "0", fees: "0", attempts: 0 };
}

/** Fold one confirmed exit fill into the pending exit. */
export function addExitFill(exit: PendingExit, size: string, price: string, fee: string): PendingExit {
  return {
    ...exit,
    filled_size: wire(dec(exit.filled_size).plus(size)),
    filled_notional: wire(dec(exit.filled_notional).plus(dec(price).times(size))),
    fees: wire(dec(exit.fees).plus(fee)),
  };
}

export function remainingSize(slot: Slot): InstanceType<typeof D> {
  return dec(slot.entry_size).minus(slot.exit?.filled_size ?? 0);
}

/**
 * The closed-slot record once the whole position is confirmed out: PnL from the real filled sizes
 * and prices, net of entry and exit fees.
 */
export function closeRecord(
  slot: Slot,
  exit: PendingExit,
  nowMs: number,
): { record: ClosedSlot; pnl: InstanceType<typeof D> } {
  const size = dec(exit.filled_size);
  const exitPx = size.gt(0) ? dec(exit.filled_notional).div(size) : dec(slot.current_price);
  const move = exitPx.minus(slot.entry_price);
  const gross = (slot.side === "short" ? move.negated() : move).times(size);
  const fees = dec(slot.entry_fee).plus(exit.fees);
  const pnl = gross.minus(fees).toDecimalPlaces(8);
  const side = slot.side === "short" ? "short" : "long";
  const record: ClosedSlot = {
    slot_id: slot.slot_id,
    instrument: slot.instrument,
    side,
    entry_size: slot.entry_size,
    entry_price: slot.entry_price,
    exit_price: wire(exitPx.toSignificantDigits(12)),
    realized_pnl: wire(pnl),
    roe_pct: Math.round(roePct(side, Number(slot.entry_price), exitPx.toNumber(), slot.leverage) * 100) / 100,
    close_reason: exit.reason,
    dsl_phase: slot.dsl_phase,
    opened_at_ms: slot.opened_at_ms,
    closed_at_ms: nowMs,
    entry_source: slot.entry_source,
    fees: wire(fees),
  };
  return { record, pnl };
}
