/**
 * A market's past loaded into the venue before trading starts: candles (from minute arrays), the
 * hourly volume of the last day (24 h volume, prevDayPx), settled funding, the latest trades and the
 * rest of the market's open interest — so a fresh sim answers like a market that has been trading.
 */
import type { Address } from "../venue.ts";
import { CandleHistory, type MinuteCandles, minutesInMemory, type PastMinutes } from "./candle-history.ts";
import { dp8, fundingRate } from "./clockwork.ts";
import type { VenueCore } from "./core.ts";
import type { Market } from "./types.ts";

export interface MarketPast {
  /** The minutes: a day at a time on demand, or all of them in memory. */
  candles: PastMinutes | MinuteCandles;
  /** Average premium of each whole hour; hour i covers [hourStartMs + i·1 h, +1 h). */
  hourStartMs: number;
  premiums: Float64Array;
  /** Open interest held outside the sim's accounts (lots). */
  openInterestLots: number;
  /** Latest trades, oldest first (px at the price scale, sz in lots). */
  readonly trades: readonly { px: number; sz: number; time: number; takerIsBuy: boolean }[];
}

const HOUR = 3_600_000;

/**
 * Load a past that ends at `endMs` (the world's start) into the market. It may run long after that
 * (a market nobody looked at until now): what the market did live since then stays, after the past.
 */
export function loadMarketPast(
  core: VenueCore,
  m: Market,
  past: MarketPast,
  endMs: number,
  parties: { buyer: Address; seller: Address },
): void {
  const minutes = "day" in past.candles ? past.candles : minutesInMemory(past.candles);
  if (minutes.minutes === 0) return;
  const history = new CandleHistory(minutes);
  m.candles.seed(history);

  // Settled funding: one record per hour that ended by the end of the past, at the venue's own formula.
  m.fundingHistory.setPast(past.hourStartMs, past.premiums, endMs, (p) => ({
    fundingRate: fundingRate(m, p),
    premium: dp8(p),
  }));

  // The last 24 hours of volume, hour by hour, into the venue's ring of hour slots (never over a
  // later hour's slot, nor over the volume traded live since).
  const endHour = Math.floor(endMs / HOUR);
  for (let hour = endHour - 23; hour <= endHour; hour++) {
    const held = m.hours[hour % 24];
    if (held && held.hour > hour) continue;
    let slot: ReturnType<VenueCore["hourSlot"]> | undefined;
    history.eachMinute(hour * HOUR, (hour + 1) * HOUR, (d, i) => {
      if (!slot) {
        slot = core.hourSlot(m, hour * HOUR);
        slot.openPx = d.o[i]!;
      }
      slot.ntl += Math.round(((d.o[i]! + d.c[i]!) / 2) * d.v[i]!);
      slot.base += d.v[i]!;
    });
  }

  m.lastPx ??= history.lastClose;
  m.backgroundOi = past.openInterestLots;
  const trades = past.trades.map((t) => ({
    ...t,
    hashSeq: ++core.hashSeq,
    tid: core.nextTid++,
    buyer: t.takerIsBuy ? parties.buyer : parties.seller,
    seller: t.takerIsBuy ? parties.seller : parties.buyer,
  }));
  m.recent.unshift(...trades);
}
