import { z } from "zod";
import { defineStrategy } from "./sdk.ts";
import {
  BPS,
  clamp,
  hasMarket,
  limitExposure,
  logReturns,
  passive,
  pushWindow,
  quote,
  stdev,
} from "./util.ts";

const avellanedaMmParams = z.object({
  gamma: z
    .number()
    .positive()
    .default(0.1)
    .describe(
      "Risk aversion γ: the reservation price is mid − position·γ·σ² and the model spread γσ² + (2/γ)·ln(1 + γ/k), both in price units, σ being the per-tick volatility of mid in price units.",
    ),
  k: z
    .number()
    .positive()
    .default(1.5)
    .describe(
      "Order-arrival decay k of the Avellaneda–Stoikov model: enters the spread only through (2/γ)·ln(1 + γ/k), price units, so a larger k tightens the spread before the min/max clamp.",
    ),
  base_size: z
    .number()
    .positive()
    .default(1)
    .describe(
      "Quote size per side at zero inventory, base units; it shrinks linearly with |position| / max_inventory, down to 10 % of base_size.",
    ),
  max_inventory: z
    .number()
    .positive()
    .default(10)
    .describe(
      "Net position limit, base units: quote size shrinks as it is approached, and the adding side is trimmed so the position cannot pass ±max_inventory (the unwinding side keeps quoting).",
    ),
  min_spread_bps: z
    .number()
    .positive()
    .default(5)
    .describe(
      "Lower bound of the full quoted spread, bps of mid; until 3 returns exist σ is also taken as this many bps of mid.",
    ),
  max_spread_bps: z
    .number()
    .positive()
    .default(200)
    .describe(
      "Upper bound of the full quoted spread, bps of mid; the reservation price's inventory shift is capped at half of it.",
    ),
  vol_window: z
    .number()
    .int()
    .min(4)
    .default(30)
    .describe(
      "Per-tick log returns of mid (from the last vol_window + 1 mids) whose standard deviation, times mid, is σ.",
    ),
});
type AvellanedaMmParams = z.infer<typeof avellanedaMmParams>;

interface AvellanedaState {
  mids: number[];
}

/**
 * Avellaneda–Stoikov: reservation price r = mid − q·γ·σ² (T = 1), spread γσ² + (2/γ)·ln(1 + γ/k), both
 * in price units, the spread clamped to [min, max] bps of mid and r kept within half the max spread of
 * mid. σ is the price-unit volatility of the recent mids. Size shrinks with inventory (floor 10 %).
 */
export const avellanedaMm = defineStrategy<AvellanedaMmParams, AvellanedaState>({
  id: "avellaneda_mm",
  description: "Inventory-aware market maker (Avellaneda-Stoikov model)",
  type: "mm",
  params: avellanedaMmParams,
  init: () => ({ mids: [] }),
  decide(ctx, p, state) {
    const s = ctx.snapshot;
    if (!hasMarket(s)) return { orders: [], state };
    const mids = pushWindow(state.mids, s.mid, p.vol_window + 1);
    const rets = logReturns(mids);
    const sigma = rets.length < 3 ? (s.mid * p.min_spread_bps) / BPS : Math.max(stdev(rets), 1e-6) * s.mid;
    const q = ctx.positionQty;
    const g = p.gamma;
    const rawSpread = g * sigma * sigma + (2 / g) * Math.log(1 + g / p.k);
    const spread = clamp(rawSpread, (s.mid * p.min_spread_bps) / BPS, (s.mid * p.max_spread_bps) / BPS);
    const maxShift = (s.mid * p.max_spread_bps) / BPS / 2;
    const reservation = s.mid + clamp(-q * g * sigma * sigma, -maxShift, maxShift);
    const size = p.base_size * Math.max(0.1, 1 - Math.abs(q) / p.max_inventory);
    const half = spread / 2;
    const orders = limitExposure(
      [
        quote("buy", passive("buy", reservation - half, s), size, "as_bid"),
        quote("sell", passive("sell", reservation + half, s), size, "as_ask"),
      ],
      q,
      p.max_inventory,
      ctx.risk.reduceOnly,
    );
    return {
      orders,
      state: { mids },
      meta: { reservation_price: reservation, spread, sigma, inventory: q },
    };
  },
});
