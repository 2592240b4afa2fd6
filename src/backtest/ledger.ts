import { D, type Dec, dec, wire } from "../core/decimal.ts";
import type { Side } from "../strategies/sdk.ts";

/** One execution of the backtest account. Money and sizes are decimal strings. */
export interface LedgerFill {
  id: string;
  time_ms: number;
  side: Side;
  price: string;
  size: string;
  fee: string;
  liquidity: "maker" | "taker";
  /** The tag of the order that filled (the strategy's reason), when it had one. */
  tag?: string;
}

/**
 * One round trip: from flat (or a flip) to flat (or the next flip). `pnl` is gross price PnL, `net_pnl`
 * is after its share of fees and the funding paid or earned while it was open. A trip still open at
 * the end has no `closed_ms` and is marked to the last close.
 */
export interface RoundTrip {
  side: "long" | "short";
  opened_ms: number;
  closed_ms: number | null;
  /** Largest |position| reached. */
  size: string;
  entry_px: string;
  exit_px: string | null;
  pnl: string;
  fees: string;
  funding: string;
  net_pnl: string;
  /** The tag of the order whose fill closed it (null while open, or untagged). */
  exit_reason: string | null;
}

interface OpenTrip {
  side: "long" | "short";
  openedMs: number;
  maxQty: Dec;
  entryQty: Dec;
  entryNotional: Dec;
  exitQty: Dec;
  exitNotional: Dec;
  pnl: Dec;
  fees: Dec;
  funding: Dec;
}

const AVG_DP = 10;
const PX_DP = 8;

/**
 * The backtest account's books, in decimals: position (average cost), realized PnL, fees, funding,
 * every fill and every round trip. Number mirrors of the running totals let the equity be sampled
 * every candle without decimal arithmetic (the figures that are money come from the decimals).
 */
export class Ledger {
  qty: Dec = new D(0);
  avg: Dec = new D(0);
  realized: Dec = new D(0);
  fees: Dec = new D(0);
  funding: Dec = new D(0);
  readonly fills: LedgerFill[] = [];
  readonly trips: RoundTrip[] = [];
  private trip: OpenTrip | null = null;
  /** qty, avg and realized − fees + funding as numbers, updated with every change above. */
  qtyN = 0;
  private avgN = 0;
  private cashN = 0;

  applyFill(f: LedgerFill): void {
    const px = dec(f.price);
    let left = dec(f.size);
    const fee = dec(f.fee);
    const total = left;
    this.fills.push(f);
    this.fees = this.fees.plus(fee);
    const buy = f.side === "buy";
    while (left.gt(0)) {
      const q = this.qty;
      const reducing = !q.isZero() && q.isNeg() === buy;
      const part = reducing ? D.min(left, q.abs()) : left;
      // The whole fill in one part (no flip) takes the whole fee: the same value, without a division.
      const partFee = part.eq(total) ? fee : fee.times(part).div(total);
      if (!this.trip) this.openTrip(buy ? "long" : "short", f.time_ms);
      const trip = this.trip as OpenTrip;
      trip.fees = trip.fees.plus(partFee);
      if (reducing) {
        const perUnit = q.isPos() ? px.minus(this.avg) : this.avg.minus(px);
        const gain = perUnit.times(part);
        this.realized = this.realized.plus(gain);
        trip.pnl = trip.pnl.plus(gain);
        trip.exitQty = trip.exitQty.plus(part);
        trip.exitNotional = trip.exitNotional.plus(px.times(part));
        this.qty = buy ? q.plus(part) : q.minus(part);
        if (this.qty.isZero()) {
          this.avg = new D(0);
          this.closeTrip(f.time_ms, f.tag ?? null);
        }
      } else {
        const next = buy ? q.plus(part) : q.minus(part);
        this.avg = q.isZero()
          ? px
          : this.avg.times(q.abs()).plus(px.times(part)).div(next.abs()).toDecimalPlaces(AVG_DP);
        this.qty = next;
        trip.entryQty = trip.entryQty.plus(part);
        trip.entryNotional = trip.entryNotional.plus(px.times(part));
        if (next.abs().gt(trip.maxQty)) trip.maxQty = next.abs();
      }
      left = left.minus(part);
    }
    this.syncNumbers();
  }

  /**
   * Hourly funding on the position: a long pays `qty × mark × rate` when the rate is positive, a
   * short receives it (and the other way round when it is negative).
   */
  applyFunding(mark: string, rate: string): void {
    if (this.qty.isZero()) return;
    const payment = this.qty.times(dec(mark)).times(dec(rate)).neg();
    this.funding = this.funding.plus(payment);
    if (this.trip) this.trip.funding = this.trip.funding.plus(payment);
    this.syncNumbers();
  }

  /** Capital-free equity change at a mark price (number; for sampling the curve). */
  pnlAt(mark: number): number {
    return this.cashN + this.qtyN * (mark - this.avgN);
  }

  /** Net PnL at a mark: realized − fees + funding + unrealized, in decimals. */
  netPnl(mark: string): Dec {
    const unrealized = this.qty.isZero() ? new D(0) : dec(mark).minus(this.avg).times(this.qty);
    return this.realized.minus(this.fees).plus(this.funding).plus(unrealized);
  }

  /** Closed trips, then the open one (if any) marked to `mark`. */
  roundTrips(mark: string): RoundTrip[] {
    if (!this.trip) return [...this.trips];
    const t = this.trip;
    const unrealized = this.qty.isZero() ? new D(0) : dec(mark).minus(this.avg).times(this.qty);
    return [...this.trips, this.summarise(t, null, t.pnl.plus(unrealized), null)];
  }

  private openTrip(side: "long" | "short", ms: number): void {
    const z = new D(0);
    this.trip = {
      side,
      openedMs: ms,
      maxQty: z,
      entryQty: z,
      entryNotional: z,
      exitQty: z,
      exitNotional: z,
      pnl: z,
      fees: z,
      funding: z,
    };
  }

  private closeTrip(ms: number, reason: string | null): void {
    if (!this.trip) return;
    this.trips.push(this.summarise(this.trip, ms, this.trip.pnl, reason));
    this.trip = null;
  }

  private summarise(t: OpenTrip, closedMs: number | null, pnl: Dec, exitReason: string | null): RoundTrip {
    return {
      side: t.side,
      opened_ms: t.openedMs,
      closed_ms: closedMs,
      size: wire(t.maxQty),
      entry_px: wire(t.entryNotional.div(t.entryQty).toDecimalPlaces(PX_DP)),
      exit_px: t.exitQty.isZero() ? null : wire(t.exitNotional.div(t.exitQty).toDecimalPlaces(PX_DP)),
      pnl: wire(pnl.toDecimalPlaces(PX_DP)),
      fees: wire(t.fees.toDecimalPlaces(PX_DP)),
      funding: wire(t.funding.toDecimalPlaces(PX_DP)),
      net_pnl: wire(pnl.minus(t.fees).plus(t.funding).toDecimalPlaces(PX_DP)),
      exit_reason: exitReason,
    };
  }

  private syncNumbers(): void {
    this.qtyN = this.qty.toNumber();
    this.avgN = this.avg.toNumber();
    this.cashN = this.realized.minus(this.fees).plus(this.funding).toNumber();
  }
}
