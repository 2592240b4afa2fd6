import { z } from "zod";
import { buildQuotes, initVolState, quotingParams, stepVol, type VolState } from "./quoting/engine.ts";
import { ladderOrders } from "./quoting/ladder.ts";
import { defineStrategy } from "./sdk.ts";
import { hasMarket } from "./util.ts";

const liquidationMmParams = quotingParams.extend({
  oi_drop_threshold_pct: z
    .number()
    .positive()
    .default(5)
    .describe(
      "Fall of open interest from the previous reading, percent, that marks a liquidation cascade (5 = a drop of 5 % or more in one tick).",
    ),
  cascade_spread_mult: z
    .number()
    .min(1)
    .default(2.5)
    .describe(
      "Multiplier on the half-spread during a cascade, applied after the spread bounds (so it may exceed max_spread_bps).",
    ),
  cascade_size_mult: z
    .number()
    .min(0)
    .max(1)
    .default(0.4)
    .describe(
      "Size multiplier, fraction, for the with-trend side during a cascade (asks when mid fell on the trigger tick, bids when it rose); the side absorbing the forced flow keeps full size.",
    ),
  cooldown_ticks: z
    .number()
    .int()
    .min(1)
    .default(15)
    .describe("Ticks a cascade lasts, counting the trigger tick; a new trigger restarts the count."),
});
type LiquidationMmParams = z.infer<typeof liquidationMmParams>;

interface LiquidationState {
  vol: VolState;
  prevOi: number;
  prevMid: number;
  /** Ticks of cascade mode left, including the current one. */
  cooldown: number;
  direction: "down" | "up";
}

/**
 * Quoting-engine MM that detects liquidation cascades from sudden open-interest drops. During a
 * cascade it widens the spread, keeps full size on the side that absorbs the forced flow (bids when
 * price falls: liquidated longs sell; asks when it rises) and shrinks the with-trend side once.
 */
export const liquidationMm = defineStrategy<LiquidationMmParams, LiquidationState>({
  id: "liquidation_mm",
  description: "Liquidation flow MM — provides liquidity during cascade events",
  type: "mm",
  params: liquidationMmParams,
  needs: { assetContext: true },
  init: () => ({ vol: initVolState(), prevOi: 0, prevMid: 0, cooldown: 0, direction: "down" }),
  decide(ctx, p, state) {
    const s = ctx.snapshot;
    if (!hasMarket(s)) return { orders: [], state };
    const { vol, state: volNext } = stepVol(state.vol, s.mid, s.timestampMs, ctx.tickSeconds, p.vol_window);
    const oi = s.openInterest;
    const triggered =
      oi > 0 && state.prevOi > 0 && ((oi - state.prevOi) / state.prevOi) * 100 <= -p.oi_drop_threshold_pct;
    let cooldown = triggered ? p.cooldown_ticks : state.cooldown;
    const inCascade = cooldown > 0;
    let direction = state.direction;
    if (triggered && state.prevMid > 0) direction = s.mid < state.prevMid ? "down" : "up";
    const q = ctx.positionQty;
    const r = buildQuotes(p, {
      snapshot: s,
      inventory: q,
      drawdownPct: ctx.risk.drawdownPct,
      vol,
      spreadMult: inCascade ? p.cascade_spread_mult : 1,
    });
    const levels = inCascade
      ? r.levels.map((l) =>
          direction === "down"
            ? { ...l, askSize: l.askSize * p.cascade_size_mult }
            : { ...l, bidSize: l.bidSize * p.cascade_size_mult },
        )
      : r.levels;
    const tags = inCascade ? { bid: "liq_bid", ask: "liq_ask" } : { bid: "normal_bid", ask: "normal_ask" };
    const orders = ladderOrders(levels, s, tags, q, p.inv_limit, ctx.risk.reduceOnly || r.reduceOnly);
    if (inCascade) cooldown -= 1;
    return {
      orders,
      state: {
        vol: volNext,
        prevOi: oi > 0 ? oi : state.prevOi,
        prevMid: s.mid,
        cooldown,
        direction,
      },
      meta: {
        liq_triggered: triggered,
        in_cascade: inCascade,
        cascade_direction: direction,
        half_spread: r.halfSpread,
      },
    };
  },
});
