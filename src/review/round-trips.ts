import { D, type Dec } from "../core/decimal.ts";
import type { TradeLogMode, TradeRecord } from "./trade-log.ts";

/** One matched open→close pair of fills (possibly a slice of each). */
export interface RoundTrip {
  id: string;
  mode: TradeLogMode;
  instrument: string;
  direction: "long" | "short";
  entry_uid: string;
  exit_uid: string;
  entry_price: Dec;
  exit_price: Dec;
  quantity: Dec;
  entry_ts: number;
  exit_ts: number;
  entry_fee: Dec;
  exit_fee: Dec;
  gross: Dec;
  fees: Dec;
  net: Dec;
  holding_ms: number;
  /** Strategy of the opening fill ("unknown" when the producer left it empty). */
  strategy: string;
  entry_meta: string;
  exit_meta: string;
  entry_signal_score: number | null;
}

/** The unmatched remainder of a fill: an open position (or part of one). */
export interface OpenLot {
  trade: TradeRecord;
  quantity: Dec;
  fee: Dec;
}

interface Pairing {
  roundTrips: RoundTrip[];
  open: OpenLot[];
}

/**
 * FIFO matching per book (mode + instrument): the oldest unmatched buy against the oldest unmatched
 * sell; whichever came first is the entry. Fees are split pro rata to the matched quantity, with the
 * last slice taking the exact remainder so no fee is lost or invented. Pure.
 */
export function pairRoundTrips(trades: readonly TradeRecord[]): Pairing {
  const books = new Map<string, TradeRecord[]>();
  for (const t of trades) {
    const key = `${t.mode}\u0000${t.instrument}`;
    const book = books.get(key);
    if (book) book.push(t);
    else books.set(key, [t]);
  }
  const roundTrips: RoundTrip[] = [];
  const open: OpenLot[] = [];
  for (const book of books.values()) {
    const ordered = [...book].sort((a, b) => a.timestamp_ms - b.timestamp_ms);
    const buys: OpenLot[] = [];
    const sells: OpenLot[] = [];
    for (const trade of ordered) {
      (trade.side === "buy" ? buys : sells).push({ trade, quantity: trade.quantity, fee: trade.fee });
      while (buys.length > 0 && sells.length > 0) {
        const buy = buys[0]!;
        const sell = sells[0]!;
        const longTrip = buy.trade.timestamp_ms <= sell.trade.timestamp_ms;
        const entry = longTrip ? buy : sell;
        const exit = longTrip ? sell : buy;
        const qty = D.min(buy.quantity, sell.quantity);
        const entryFee = sliceFee(entry, qty);
        const exitFee = sliceFee(exit, qty);
        const move = exit.trade.price.minus(entry.trade.price);
        const gross = (longTrip ? move : move.neg()).times(qty);
        const fees = entryFee.plus(exitFee);
        roundTrips.push({
          id: `${entry.trade.uid}>${exit.trade.uid}`,
          mode: entry.trade.mode,
          instrument: entry.trade.instrument,
          direction: longTrip ? "long" : "short",
          entry_uid: entry.trade.uid,
          exit_uid: exit.trade.uid,
          entry_price: entry.trade.price,
          exit_price: exit.trade.price,
          quantity: qty,
          entry_ts: entry.trade.timestamp_ms,
          exit_ts: exit.trade.timestamp_ms,
          entry_fee: entryFee,
          exit_fee: exitFee,
          gross,
          fees,
          net: gross.minus(fees),
          holding_ms: exit.trade.timestamp_ms - entry.trade.timestamp_ms,
          strategy: entry.trade.strategy || "unknown",
          entry_meta: entry.trade.meta,
          exit_meta: exit.trade.meta,
          entry_signal_score: entry.trade.signal_score,
        });
        consume(buy, qty, longTrip ? entryFee : exitFee);
        consume(sell, qty, longTrip ? exitFee : entryFee);
        if (buy.quantity.isZero()) buys.shift();
        if (sell.quantity.isZero()) sells.shift();
      }
    }
    open.push(...buys, ...sells);
  }
  roundTrips.sort((a, b) => a.entry_ts - b.entry_ts || a.exit_ts - b.exit_ts);
  return { roundTrips, open };
}

function sliceFee(lot: OpenLot, qty: Dec): Dec {
  if (qty.eq(lot.quantity)) return lot.fee;
  return lot.fee.times(qty).div(lot.quantity);
}

function consume(lot: OpenLot, qty: Dec, fee: Dec): void {
  lot.quantity = lot.quantity.minus(qty);
  lot.fee = lot.fee.minus(fee);
}
