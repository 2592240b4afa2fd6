import { z } from "zod";
import { defineStrategy, type OrderIntent } from "./sdk.ts";
import { BPS, hasMarket, limitExposure, quote } from "./util.ts";

const gridMmParams = z.object({
  grid_spacing_bps: z
    .number()
    .positive()
    .default(10)
    .describe(
      "Distance between grid prices, bps of the anchor (the first mid the strategy saw); the lattice never moves with mid.",
    ),
  num_levels: z
    .number()
    .int()
    .min(1)
    .max(50)
    .default(5)
    .describe(
      "Grid prices quoted per side: Gtc bids at the num_levels lattice prices strictly below mid and asks at the num_levels strictly above.",
    ),
  size_per_level: z.number().positive().default(0.5).describe("Order size at each grid price, base units."),
  max_position: z
    .number()
    .positive()
    .default(5)
    .describe(
      "Cumulative net position limit, base units: all resting bids together never take the position beyond +max_position, nor all asks beyond −max_position (the farthest levels are trimmed or dropped).",
    ),
});
type GridMmParams = z.infer<typeof gridMmParams>;

interface GridState {
  /** Price the lattice is anchored at (the first mid seen); levels are anchor + k·spacing. */
  anchor: number;
}

/**
 * Resting Gtc orders on a fixed price lattice: the `num_levels` lattice prices strictly below mid are
 * bids, those strictly above are asks. The lattice does not move with mid, so unchanged levels are
 * never churned; a filled level is re-quoted on the other side as the market moves through it.
 */
export const gridMm = defineStrategy<GridMmParams, GridState>({
  id: "grid_mm",
  description: "Grid market maker — fixed-interval levels above and below mid",
  type: "mm",
  params: gridMmParams,
  init: () => ({ anchor: 0 }),
  decide(ctx, p, state) {
    const s = ctx.snapshot;
    if (!hasMarket(s)) return { orders: [], state };
    const anchor = state.anchor > 0 ? state.anchor : s.mid;
    const step = (anchor * p.grid_spacing_bps) / BPS;
    const x = (s.mid - anchor) / step;
    const firstBid = Math.ceil(x - 1e-9) - 1;
    const firstAsk = Math.floor(x + 1e-9) + 1;
    const raw: OrderIntent[] = [];
    for (let i = 0; i < p.num_levels; i++) {
      const bid = anchor + (firstBid - i) * step;
      if (bid > 0) raw.push(quote("buy", bid, p.size_per_level, "grid_bid", "Gtc"));
      raw.push(quote("sell", anchor + (firstAsk + i) * step, p.size_per_level, "grid_ask", "Gtc"));
    }
    const orders = limitExposure(raw, ctx.positionQty, p.max_position, ctx.risk.reduceOnly);
    return { orders, state: { anchor } };
  },
});
