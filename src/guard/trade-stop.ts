import { dec } from "../core/decimal.ts";
import { UserError } from "../core/errors.ts";
import { backstopCloid } from "./backstop.ts";
import type { BackstopPort, StopAnswer } from "./backstops.ts";

/**
 * `hl trade … --stop PX`: the order's position gets a reduce-only stop-market order resting on the
 * exchange at PX, placed as soon as the order is answered (for its filled size, or its whole size
 * while it rests: a reduce-only stop never opens a position). Its cloid derives from the order's.
 */
interface TradeStopRequest {
  coin: string;
  /** The order's side: a buy is protected by a sell stop below, a sell by a buy stop above. */
  orderSide: "buy" | "sell";
  size: string;
  stopPx: string;
  /** The order's own cloid (or oid): the stop's id derives from it. */
  orderKey: string;
}

/** Refuse a stop on the wrong side of the order's price (it would fire at once). */
export function checkTradeStop(orderSide: "buy" | "sell", stopPx: string, orderPx: string): void {
  const wrong = orderSide === "buy" ? dec(stopPx).gte(orderPx) : dec(stopPx).lte(orderPx);
  if (wrong)
    throw new UserError(
      `--stop ${stopPx} must be ${orderSide === "buy" ? "below" : "above"} the order's price ${orderPx} for a ${orderSide}`,
    );
}

export function placeTradeStop(port: BackstopPort, r: TradeStopRequest): Promise<StopAnswer> {
  return port.placeStop({
    coin: r.coin,
    side: r.orderSide === "buy" ? "long" : "short",
    size: r.size,
    triggerPx: r.stopPx,
    cloid: backstopCloid("trade", r.orderKey),
  });
}
