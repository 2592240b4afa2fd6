import type { z } from "zod";
import {
  buildQuotes,
  initVolState,
  type QuotingParams,
  quotingParams,
  stepVol,
  type VolBin,
  type VolState,
} from "./quoting/engine.ts";
import { ladderOrders } from "./quoting/ladder.ts";
import { defineStrategy } from "./sdk.ts";
import { hasMarket } from "./util.ts";

/** Per volatility regime: full-spread bounds (bps), size multiplier on base_size, ladder depth. */
export const REGIMES: Record<VolBin, { minBps: number; maxBps: number; sizeMult: number; levels: number }> = {
  I_low: { minBps: 2, maxBps: 8, sizeMult: 1.5, levels: 4 },
  II_normal: { minBps: 5, maxBps: 20, sizeMult: 1.0, levels: 3 },
  III_high: { minBps: 15, maxBps: 40, sizeMult: 0.5, levels: 2 },
  IV_extreme: { minBps: 30, maxBps: 80, sizeMult: 0.2, levels: 1 },
};

/**
 * The quoting engine's params less the three the regime table sets (spread bounds and ladder depth):
 * offering them would accept overrides that change nothing.
 */
const regimeMmParams = quotingParams.omit({
  min_spread_bps: true,
  max_spread_bps: true,
  num_levels: true,
});
type RegimeMmParams = z.infer<typeof regimeMmParams>;

/**
 * The quoting engine with its spread bounds, size and depth set by the current volatility regime
 * (applied on the tick the regime is detected). In IV_extreme it only unwinds.
 */
export const regimeMm = defineStrategy<RegimeMmParams, VolState>({
  id: "regime_mm",
  description: "Vol-regime adaptive MM — switches behavior by volatility regime",
  type: "mm",
  params: regimeMmParams,
  init: () => initVolState(),
  decide(ctx, p, state) {
    const s = ctx.snapshot;
    if (!hasMarket(s)) return { orders: [], state };
    const { vol, state: next } = stepVol(state, s.mid, s.timestampMs, ctx.tickSeconds, p.vol_window);
    const regime = REGIMES[vol.bin];
    const cfg: QuotingParams = {
      ...p,
      min_spread_bps: regime.minBps,
      max_spread_bps: regime.maxBps,
      base_size: p.base_size * regime.sizeMult,
      num_levels: regime.levels,
    };
    const q = ctx.positionQty;
    const r = buildQuotes(cfg, { snapshot: s, inventory: q, drawdownPct: ctx.risk.drawdownPct, vol });
    const unwindOnly = ctx.risk.reduceOnly || r.reduceOnly || vol.bin === "IV_extreme";
    const orders = ladderOrders(
      r.levels,
      s,
      { bid: "regime_bid", ask: "regime_ask" },
      q,
      p.inv_limit,
      unwindOnly,
    );
    return {
      orders,
      state: next,
      meta: { regime: vol.bin, fv_skewed: r.fvSkewed, half_spread: r.halfSpread, dd_band: r.ddBand },
    };
  },
});
