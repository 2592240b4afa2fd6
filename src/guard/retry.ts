import { HALTED_CLOSE_RETRY_MS, type Rejection } from "../exchange/rejections.ts";

/**
 * How long a close that filled nothing waits before its next attempt: 250 ms, doubling to 1 s. Every
 * protective close (WOLF, `hl run`, `hl dsl start`) goes out again on the first price after this,
 * never waiting for a tick. A market the exchange has halted refuses the close too, for a long
 * while: asking every second would only spend the request budget, so it is asked once a minute.
 */
export function closeRetryDelayMs(attempts: number, refusal?: Rejection): number {
  if (refusal?.reason === "market_halted") return HALTED_CLOSE_RETRY_MS;
  return Math.min(1_000, 250 * 2 ** Math.max(0, attempts - 1));
}

/** A backstop the exchange refused is asked again no sooner than this. */
const REFUSED_BACKSTOP_RETRY_MS = 30_000;

/**
 * How long a refused backstop waits before it is placed again: 30 s, or once a minute on a halted
 * market, as a close there is (the halt refuses the stop for as long as it lasts).
 */
export function backstopRetryDelayMs(refusal: Rejection): number {
  return refusal.reason === "market_halted" ? HALTED_CLOSE_RETRY_MS : REFUSED_BACKSTOP_RETRY_MS;
}
