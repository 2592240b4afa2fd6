/**
 * How long a close that filled nothing waits before its next attempt: 250 ms, doubling to 1 s. Every
 * protective close (WOLF, `hl run`, `hl dsl start`) goes out again on the first price after this,
 * never waiting for a tick.
 */
export function closeRetryDelayMs(attempts: number): number {
  return Math.min(1_000, 250 * 2 ** Math.max(0, attempts - 1));
}
