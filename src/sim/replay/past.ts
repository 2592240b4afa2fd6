import type { MarketPast } from "../venue/history.ts";
import { MINUTE_MS, type RecordedCandle, type RecordedFunding } from "./recorded.ts";

const HOUR_MS = 3_600_000;

/**
 * The recorded minutes and funding before the replay starts, in the venue's past format (prices at
 * the price scale, volume in lots): a replaying world opens with that history behind it. A minute
 * missing from the recording carries the previous close with no volume, as the exchange shows it.
 * Undefined when nothing was recorded before the start.
 */
export function recordedPast(
  candles: readonly RecordedCandle[],
  funding: readonly RecordedFunding[],
  scale: { pxDecimals: number; szDecimals: number },
  beforeMs: number,
): MarketPast | undefined {
  const closed = candles.filter((c) => c.t + MINUTE_MS <= beforeMs);
  const first = closed[0];
  if (!first) return undefined;
  const startMs = first.t;
  const minutes = Math.round((closed[closed.length - 1]!.t - startMs) / MINUTE_MS) + 1;
  const pxK = 10 ** scale.pxDecimals;
  const szK = 10 ** scale.szDecimals;
  const out = {
    startMs,
    o: new Int32Array(minutes),
    h: new Int32Array(minutes),
    l: new Int32Array(minutes),
    c: new Int32Array(minutes),
    v: new Float64Array(minutes),
    n: new Uint16Array(minutes),
  };
  let j = 0;
  let prevClose = Math.round(first.o * pxK);
  for (let i = 0; i < minutes; i++) {
    const k = closed[j];
    if (k && Math.round((k.t - startMs) / MINUTE_MS) === i) {
      out.o[i] = Math.round(k.o * pxK);
      out.h[i] = Math.round(k.h * pxK);
      out.l[i] = Math.round(k.l * pxK);
      out.c[i] = Math.round(k.c * pxK);
      out.v[i] = Math.round(k.v * szK);
      out.n[i] = Math.min(65_535, k.n);
      prevClose = out.c[i]!;
      j++;
    } else {
      out.o[i] = prevClose;
      out.h[i] = prevClose;
      out.l[i] = prevClose;
      out.c[i] = prevClose;
    }
  }
  // Hourly premiums from the recorded funding: hour i ends at hourStartMs + (i + 1) h.
  const settled = funding.filter((f) => f.time <= beforeMs);
  const hourStartMs = settled[0] ? Math.floor(settled[0].time / HOUR_MS) * HOUR_MS - HOUR_MS : startMs;
  const hours = settled.length ? Math.floor((settled[settled.length - 1]!.time - hourStartMs) / HOUR_MS) : 0;
  const premiums = new Float64Array(hours);
  for (const f of settled) {
    const i = Math.floor((f.time - hourStartMs) / HOUR_MS) - 1;
    if (i >= 0 && i < hours) premiums[i] = f.premium;
  }
  return { candles: out, hourStartMs, premiums, openInterestLots: 0, trades: [] };
}
