import {
  buildQuotes,
  initVolState,
  type QuotingParams,
  quotingParams,
  stepVol,
  type VolState,
} from "./quoting/engine.ts";
import { ladderOrders } from "./quoting/ladder.ts";
import { defineStrategy } from "./sdk.ts";
import { hasMarket } from "./util.ts";

/** The quoting engine as is: composite fair value, vol-binned spread, inventory skew, 3-level ladder. */
export const engineMm = defineStrategy<QuotingParams, VolState>({
  id: "engine_mm",
  description: "Production quoting engine MM — composite FV, dynamic spreads, multi-level ladder",
  type: "mm",
  params: quotingParams,
  init: () => initVolState(),
  decide(ctx, p, state) {
    const s = ctx.snapshot;
    if (!hasMarket(s)) return { orders: [], state };
    const { vol, state: next } = stepVol(state, s.mid, s.timestampMs, ctx.tickSeconds, p.vol_window);
    const q = ctx.positionQty;
    const r = buildQuotes(p, { snapshot: s, inventory: q, drawdownPct: ctx.risk.drawdownPct, vol });
    const orders = ladderOrders(
      r.levels,
      s,
      { bid: "engine_bid", ask: "engine_ask" },
      q,
      p.inv_limit,
      ctx.risk.reduceOnly || r.reduceOnly,
    );
    return {
      orders,
      state: next,
      meta: {
        fv_raw: r.fvRaw,
        fv_skewed: r.fvSkewed,
        half_spread: r.halfSpread,
        vol_bin: vol.bin,
        dd_band: r.ddBand,
      },
    };
  },
});
