import { D, type Dec, type DecLike, dec, wire } from "../core/decimal.ts";
import type { Side } from "../strategies/sdk.ts";

/**
 * Average-cost position of one instrument, in decimals. Realized PnL is gross of fees; fees are kept
 * apart and `netPnl` subtracts them. Serialises to the `positions` kv shape (decimal strings).
 */
export interface PositionJson {
  instrument: string;
  net_qty: string;
  avg_entry_price: string;
  realized_pnl: string;
  fees_paid: string;
  unrealized_pnl: string;
  mark_price: string;
  notional: string;
  total_buy_qty: string;
  total_sell_qty: string;
  num_fills: number;
}

/** Average entry is kept to 10 decimals so realized PnL stays a short, exact decimal. */
const AVG_DP = 10;

export class Position {
  qty: Dec = new D(0);
  avg: Dec = new D(0);
  realized: Dec = new D(0);
  fees: Dec = new D(0);
  mark: Dec = new D(0);
  bought: Dec = new D(0);
  sold: Dec = new D(0);
  fills = 0;

  constructor(readonly instrument: string) {}

  applyFill(side: Side, price: DecLike, size: DecLike, fee: DecLike = 0): void {
    const px = dec(price);
    const sz = dec(size);
    if (sz.lte(0)) return;
    const signed = side === "buy" ? sz : sz.neg();
    const old = this.qty;
    if (!old.isZero() && old.isNeg() !== signed.isNeg()) {
      const closed = D.min(sz, old.abs());
      const perUnit = old.isPos() ? px.minus(this.avg) : this.avg.minus(px);
      this.realized = this.realized.plus(perUnit.times(closed));
    }
    const next = old.plus(signed);
    if (next.isZero()) this.avg = new D(0);
    else if (old.isZero() || old.isNeg() !== next.isNeg()) this.avg = px;
    else if (next.abs().gt(old.abs()))
      this.avg = this.avg.times(old.abs()).plus(px.times(sz)).div(next.abs()).toDecimalPlaces(AVG_DP);
    this.qty = next;
    this.fees = this.fees.plus(dec(fee));
    if (side === "buy") this.bought = this.bought.plus(sz);
    else this.sold = this.sold.plus(sz);
    this.fills += 1;
  }

  /** Replaces quantity and entry with the exchange's view (reconciliation); PnL history is kept. */
  adopt(qty: DecLike, entryPx: DecLike): void {
    this.qty = dec(qty);
    this.avg = this.qty.isZero() ? new D(0) : dec(entryPx);
  }

  unrealized(mark: DecLike = this.mark): Dec {
    const m = dec(mark);
    if (this.qty.isZero() || this.avg.isZero() || m.lte(0)) return new D(0);
    return m.minus(this.avg).times(this.qty);
  }

  /** Realized + unrealized − fees, at the last mark. */
  netPnl(): Dec {
    return this.realized.plus(this.unrealized()).minus(this.fees);
  }

  toJson(): PositionJson {
    return {
      instrument: this.instrument,
      net_qty: wire(this.qty),
      avg_entry_price: wire(this.avg),
      realized_pnl: wire(this.realized),
      fees_paid: wire(this.fees),
      unrealized_pnl: wire(this.unrealized().toDecimalPlaces(8)),
      mark_price: wire(this.mark),
      notional: wire(this.qty.abs().times(this.mark).toDecimalPlaces(8)),
      total_buy_qty: wire(this.bought),
      total_sell_qty: wire(this.sold),
      num_fills: this.fills,
    };
  }

  static fromJson(j: Partial<PositionJson> & { instrument: string }): Position {
    const p = new Position(j.instrument);
    p.qty = dec(j.net_qty ?? 0);
    p.avg = dec(j.avg_entry_price ?? 0);
    p.realized = dec(j.realized_pnl ?? 0);
    p.fees = dec(j.fees_paid ?? 0);
    p.mark = dec(j.mark_price ?? 0);
    p.bought = dec(j.total_buy_qty ?? 0);
    p.sold = dec(j.total_sell_qty ?? 0);
    p.fills = j.num_fills ?? 0;
    return p;
  }
}
