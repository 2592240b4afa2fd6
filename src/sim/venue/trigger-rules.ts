/**
 * How the exchange holds and fires trigger (TP/SL) orders, as pure functions on the venue's integers
 * (price units, lots), shared by the sim venue (core.ts) and the --dry-run paper book
 * (src/engine/paper-gateway.ts), so both trigger by one source:
 * - a stop-loss fires when the mark falls to its trigger (a sell) or rises to it (a buy), a
 *   take-profit the other way round;
 * - one whose condition already holds at the mark is refused;
 * - a fired reduce-only order is cut to the position (size 0: the whole position), and a fired
 *   market trigger becomes a market order at most 10 % through the mark.
 */

/** Whether the order fires when the mark rises to its trigger (a buy stop, a sell take-profit). */
export function triggersAbove(tpsl: "tp" | "sl", isBuy: boolean): boolean {
  return (tpsl === "sl") === isBuy;
}

/** Whether the mark has reached the trigger. */
export function triggerReached(above: boolean, mark: number, triggerPx: number): boolean {
  return above ? mark >= triggerPx : mark <= triggerPx;
}

/** A TP/SL whose condition already holds at the mark would fire at once: the exchange refuses it. */
export function triggerPriceRefusal(
  above: boolean,
  mark: number,
  triggerPx: number,
  asset: number,
): string | null {
  return triggerReached(above, mark, triggerPx) ? `Invalid TP/SL price. asset=${asset}` : null;
}

/** The size (lots) a fired reduce-only trigger sends: cut to what reduces the position; 0 means all of it. */
export function triggeredReduceOnlySize(sz: number, reducible: number): number {
  return sz === 0 ? reducible : Math.min(sz, reducible);
}

/**
 * The limit price (price units) of a fired market trigger acting on `mark`: at most 10 % through it,
 * as the exchange's TP/SL market orders allow.
 */
export function triggeredMarketLimit(isBuy: boolean, mark: number): number {
  return isBuy ? Math.ceil(mark * 1.1) : Math.max(1, Math.floor(mark * 0.9));
}
