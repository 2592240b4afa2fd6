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
