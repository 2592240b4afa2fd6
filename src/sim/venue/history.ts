/**
 * A market's past loaded into the venue before trading starts: candles (from minute arrays), the
 * hourly volume of the last day (24 h volume, prevDayPx), settled funding, the latest trades and the
 * rest of the market's open interest — so a fresh sim answers like a market that has been trading.
 */
import type { Address } from "../venue.ts";
import { CandleHistory, type LazyMinutes, type MinuteCandles } from "./candle-history.ts";
import { dp8, fundingRate } from "./clockwork.ts";
import type { VenueCore } from "./core.ts";
import type { Market } from "./types.ts";

export interface MarketPast {
  /** The minutes, or the recent ones at once and every one on demand. */
  candles: MinuteCandles | LazyMinutes;
  /** Average premium of each whole hour; hour i covers [hourStartMs + i·1 h, +1 h). */
  hourStartMs: number;
  premiums: Float64Array;
  /** Open interest held outside the sim's accounts (lots). */
  openInterestLots: number;
  /** Latest trades, oldest first (px at the price scale, sz in lots). */
  trades: { px: number; sz: number; time: number; takerIsBuy: boolean }[];
}

const MINUTE = 60_000;
const HOUR = 3_600_000;

export function loadMarketPast(
  core: VenueCore,
  m: Market,
  past: MarketPast,
  now: number,
  parties: { buyer: Address; seller: Address },
): void {
  const history = new CandleHistory(past.candles);
  m.candles.seed(history);

  // Settled funding: one record per hour that ended by now, at the venue's own formula.
  for (let i = 0; i < past.premiums.length; i++) {
    const time = past.hourStartMs + (i + 1) * HOUR;
    if (time > now) break;
    const p = past.premiums[i]!;
    m.fundingHistory.push({ time, fundingRate: fundingRate(m, p), premium: dp8(p) });
  }

  // The last 24 hours of volume, hour by hour, into the venue's ring of hour slots.
  const c = history.recent;
  const nowHour = Math.floor(now / HOUR);
  for (let hour = nowHour - 23; hour <= nowHour; hour++) {
    const from = Math.max(0, Math.ceil((hour * HOUR - c.startMs) / MINUTE));
    const to = Math.min(c.c.length, Math.ceil(((hour + 1) * HOUR - c.startMs) / MINUTE));
    if (to <= from) continue;
    const slot = core.hourSlot(m, hour * HOUR);
    slot.openPx = c.o[from]!;
    for (let i = from; i < to; i++) {
      const px = (c.o[i]! + c.c[i]!) / 2;
      slot.ntl += Math.round(px * c.v[i]!);
      slot.base += c.v[i]!;
    }
  }

  m.lastPx = history.lastClose;
  m.backgroundOi = past.openInterestLots;
  for (const t of past.trades) {
    m.recent.push({
      ...t,
      hashSeq: ++core.hashSeq,
      tid: core.nextTid++,
      buyer: t.takerIsBuy ? parties.buyer : parties.seller,
      seller: t.takerIsBuy ? parties.seller : parties.buyer,
    });
  }
}
