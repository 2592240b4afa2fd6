import { z } from "zod";
import {
  emptyRolling,
  type Rolling,
  rollingLength,
  rollingMax,
  rollingMean,
  rollingMin,
  rollingPush,
} from "./rolling.ts";
import { defineStrategy, type MarketSnapshot, type OrderIntent } from "./sdk.ts";
import { BPS, hasMarket, limitExposure, take } from "./util.ts";

const momentumBreakoutParams = z.object({
  lookback: z
    .number()
    .int()
    .min(2)
    .default(20)
    .describe(
      "Ticks behind the breakout range (highest ask and lowest bid of the previous lookback ticks) and the average activity; no entry before lookback ticks of history.",
    ),
  breakout_threshold_bps: z
    .number()
    .positive()
    .default(50)
    .describe(
      "How far mid must be above the range high (bps of the high) or below the range low (bps of the low) to enter in that direction.",
    ),
  volume_surge_mult: z
    .number()
    .positive()
    .default(2)
    .describe(
      "Entry also needs this tick's activity (last 1-minute candle volume, else 24 h volume, else open interest) above volume_surge_mult × its lookback average.",
    ),
  trailing_stop_bps: z
    .number()
    .positive()
    .default(30)
    .describe(
      "Trailing stop, bps: the position is closed by a reduce-only IOC once mid is this far back from the best mid since entry (highest for a long, lowest for a short).",
    ),
  size: z
    .number()
    .positive()
    .default(1)
    .describe("Entry size, base units (IOC at the touch, only when flat); also the largest position taken."),
});
type MomentumBreakoutParams = z.infer<typeof momentumBreakoutParams>;

interface MomentumState {
  /** The last `lookback` highs, lows and activity samples. */
  highs: Rolling;
  lows: Rolling;
  vols: Rolling;
  /** Best price reached since the position was opened (high for a long, low for a short); 0 when flat. */
  extreme: number;
}

/** Activity sample: the last 1-minute candle's volume, else 24 h volume, else open interest. */
function activity(s: MarketSnapshot): number {
  const last = s.candles[s.candles.length - 1];
  if (last) return last.v;
  return s.volume24h > 0 ? s.volume24h : s.openInterest;
}

/**
 * Breakout entry: flat, price beyond the lookback range by the threshold AND activity above
 * surge × its average → IOC at the touch in the breakout direction. Exit: a real trailing stop —
 * the best mid since entry is remembered, and the position is closed once mid falls trailing_stop_bps
 * back from it.
 */
export const momentumBreakout = defineStrategy<MomentumBreakoutParams, MomentumState>({
  id: "momentum_breakout",
  description: "Momentum breakout — enter on volume + price breakout above/below N-period range",
  type: "signal",
  params: momentumBreakoutParams,
  needs: { assetContext: true, candles: true },
  init: () => ({ highs: emptyRolling(), lows: emptyRolling(), vols: emptyRolling(), extreme: 0 }),
  decide(ctx, p, state) {
    const s = ctx.snapshot;
    if (!hasMarket(s)) return { orders: [], state };
    const high = s.ask > 0 ? s.ask : s.mid;
    const low = s.bid > 0 ? s.bid : s.mid;
    const vol = activity(s);
    const next: MomentumState = {
      highs: rollingPush(state.highs, high, p.lookback),
      lows: rollingPush(state.lows, low, p.lookback),
      vols: rollingPush(state.vols, vol, p.lookback),
      extreme: state.extreme,
    };
    const q = ctx.positionQty;
    if (q !== 0) {
      const long = q > 0;
      const seed = state.extreme > 0 ? state.extreme : Math.max(ctx.avgEntryPrice, 0) || s.mid;
      const extreme = long ? Math.max(seed, s.mid) : Math.min(seed, s.mid);
      const stop = long
        ? extreme * (1 - p.trailing_stop_bps / BPS)
        : extreme * (1 + p.trailing_stop_bps / BPS);
      const hit = long ? s.mid <= stop : s.mid >= stop;
      const orders: OrderIntent[] = hit
        ? [
            take(
              long ? "sell" : "buy",
              long ? low : high,
              Math.abs(q),
              long ? "trailing_stop_long" : "trailing_stop_short",
              true,
            ),
          ]
        : [];
      return { orders, state: { ...next, extreme }, meta: { stop_price: stop, extreme } };
    }
    next.extreme = 0;
    if (rollingLength(state.highs) < p.lookback) return { orders: [], state: next };
    const periodHigh = rollingMax(state.highs);
    const periodLow = rollingMin(state.lows);
    const avgVol = rollingMean(state.vols);
    const surge = avgVol > 0 && vol > avgVol * p.volume_surge_mult;
    const upBps = ((s.mid - periodHigh) / periodHigh) * BPS;
    const downBps = ((periodLow - s.mid) / periodLow) * BPS;
    const raw: OrderIntent[] = [];
    if (surge && upBps > p.breakout_threshold_bps) raw.push(take("buy", high, p.size, "breakout_long"));
    else if (surge && downBps > p.breakout_threshold_bps)
      raw.push(take("sell", low, p.size, "breakout_short"));
    const orders = limitExposure(raw, q, p.size, ctx.risk.reduceOnly);
    return {
      orders,
      state: next,
      meta: { breakout_up_bps: upBps, breakout_down_bps: downBps, volume_surge: surge },
    };
  },
});
