import { D, type Dec, type DecLike, dec } from "../core/decimal.ts";
import type { ClosedPosition } from "./journal-entry.ts";

/** One fill as the strategy engine applied it. */
export interface TrackedFill {
  side: "buy" | "sell";
  price: DecLike;
  size: DecLike;
  fee: DecLike;
  timeMs: number;
}

/** The engine's net position (quantity signed, average entry). */
export interface NetPosition {
  qty: Dec;
  avg: Dec;
}

/** Why the fill that closed a position was sent. */
export interface FillContext {
  /** The fill came from one of this run's orders (not `hl close`, a liquidation, another program). */
  ours: boolean;
  /** The risk mode when it was applied. */
  risk: "ok" | "reduce_only" | "halt";
  /** Why our order was sent, when not by the strategy (the run's DSL stop). */
  reason?: string;
}

interface OpenLot {
  direction: "long" | "short";
  entryTs: number;
  entryAvg: Dec;
  exitQty: Dec;
  exitNotional: Dec;
  /** Gross PnL of the reducing fills so far. */
  gross: Dec;
  fees: Dec;
}

const ZERO = new D(0);

function lot(qty: Dec, avg: Dec, ts: number, fees: Dec): OpenLot {
  return {
    direction: qty.isPos() ? "long" : "short",
    entryTs: ts,
    entryAvg: avg,
    exitQty: ZERO,
    exitNotional: ZERO,
    gross: ZERO,
    fees,
  };
}

function closeReason(ctx: FillContext): string {
  if (ctx.ours && ctx.reason) return ctx.reason;
  if (!ctx.ours)
    return "closed_outside: a fill not sent by this run (hl close, liquidation or another program)";
  if (ctx.risk !== "ok") return `risk_${ctx.risk}: position closed while the risk limit held`;
  return "strategy_exit";
}

/**
 * Net position of a single-strategy run, from flat (or a flip) back to flat: each time the position
 * ends, the closed position for the journal. Entry is the average entry at the close, exit the
 * average of the reducing fills, PnL their gross minus every fee of the position's life. ROE is on
 * notional (the engine trades without a margin figure of its own); no peak is tracked. Pure: no I/O.
 */
export class PositionTracker {
  private open: OpenLot | null = null;

  constructor(
    private readonly instrument: string,
    private readonly entrySource: string,
  ) {}

  /** Apply one fill given the position before and after it; returns the position it closed, if any. */
  onFill(
    fill: TrackedFill,
    before: NetPosition,
    after: NetPosition,
    ctx: FillContext,
  ): ClosedPosition | null {
    const size = dec(fill.size);
    const price = dec(fill.price);
    const fee = dec(fill.fee);
    if (size.lte(0)) return null;
    if (before.qty.isZero()) {
      this.open = after.qty.isZero() ? null : lot(after.qty, after.avg, fill.timeMs, fee);
      return null;
    }
    // A position already open when the run started (or resumed): its entry time is unknown, so it starts here.
    const open = this.open ?? lot(before.qty, before.avg, fill.timeMs, ZERO);
    this.open = open;
    const reducing = (fill.side === "buy") === before.qty.isNeg();
    if (!reducing) {
      open.fees = open.fees.plus(fee);
      open.entryAvg = after.avg;
      return null;
    }
    const closed = D.min(size, before.qty.abs());
    const feeShare = fee.times(closed).div(size);
    const perUnit = open.direction === "long" ? price.minus(before.avg) : before.avg.minus(price);
    open.entryAvg = before.avg;
    open.exitQty = open.exitQty.plus(closed);
    open.exitNotional = open.exitNotional.plus(price.times(closed));
    open.gross = open.gross.plus(perUnit.times(closed));
    open.fees = open.fees.plus(feeShare);
    const flipped = !after.qty.isZero() && after.qty.isNeg() !== before.qty.isNeg();
    if (!after.qty.isZero() && !flipped) return null;
    this.open = flipped ? lot(after.qty, after.avg, fill.timeMs, fee.minus(feeShare)) : null;
    return this.closedPosition(open, fill.timeMs, closeReason(ctx));
  }

  private closedPosition(open: OpenLot, closeTs: number, reason: string): ClosedPosition {
    const pnl = open.gross.minus(open.fees);
    const notional = open.entryAvg.times(open.exitQty);
    const roe = notional.isZero() ? 0 : pnl.div(notional).times(100).toNumber();
    return {
      instrument: this.instrument,
      direction: open.direction,
      entry_price: open.entryAvg,
      exit_price: open.exitQty.isZero()
        ? open.entryAvg
        : open.exitNotional.div(open.exitQty).toSignificantDigits(12),
      size: open.exitQty,
      pnl,
      roe_pct: roe,
      peak_roe_pct: null,
      entry_ts: open.entryTs,
      close_ts: closeTs,
      entry_source: this.entrySource,
      entry_signal_score: null,
      close_reason: reason,
    };
  }
}

/** What the strategy engine tells about each fill it applies. */
export interface FillObserver {
  onFill(fill: TrackedFill, before: NetPosition, after: NetPosition, ctx: FillContext): void;
}
