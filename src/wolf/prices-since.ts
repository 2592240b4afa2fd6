import type { Candle } from "../signals/candles.ts";

/**
 * The prices a coin traded at since `sinceMs`, from its candles: the high and low of every candle that
 * opened at or after it, and the close of the one it fell in (that candle's high and low may come from
 * before `sinceMs`, its close does not).
 */
export function pricesSince(candles: readonly Candle[], sinceMs: number): number[] {
  const out: number[] = [];
  for (const c of candles) {
    if (c.t >= sinceMs) out.push(c.h, c.l);
    else if (c.T >= sinceMs) out.push(c.c);
  }
  return out.filter((p) => Number.isFinite(p) && p > 0);
}
