import { z } from "zod";
import { defineStrategy } from "./sdk.ts";
import { BPS, hasMarket, take } from "./util.ts";

const hedgeAgentParams = z.object({
  inventory_threshold: z
    .number()
    .min(0)
    .default(3)
    .describe(
      "Position tolerated unhedged, base units: the excess is |position| − inventory_threshold, or the notional excess when that is larger.",
    ),
  notional_threshold: z
    .number()
    .min(0)
    .default(15000)
    .describe(
      "Position value tolerated unhedged, USD: the excess is |position| − notional_threshold / mid base units when that is larger than the quantity excess.",
    ),
  urgency_factor: z
    .number()
    .positive()
    .max(1)
    .default(0.5)
    .describe("Fraction of the excess hedged per tick (1 = all of it at once)."),
  max_hedge_size: z.number().positive().default(5).describe("Largest hedge order per tick, base units."),
  slippage_bps: z
    .number()
    .min(0)
    .default(10)
    .describe(
      "How far through mid the reduce-only hedge IOC may trade, bps of mid (mid − slippage to sell, mid + slippage to buy); when the spread is wider than that the limit is the touch itself, so the hedge still fills.",
    ),
});
type HedgeAgentParams = z.infer<typeof hedgeAgentParams>;

/**
 * Reduces the account's exposure on the instrument, whoever opened it (the engine reconciles the
 * position with the exchange, so manual trades and other agents' fills count): each tick it sends a
 * reduce-only IOC for urgency × excess, capped at max_hedge_size, priced slippage_bps through mid
 * (or at the touch, when the spread is wider than that).
 */
export const hedgeAgent = defineStrategy<HedgeAgentParams, null>({
  id: "hedge_agent",
  description: "Reduces excess exposure per deterministic mandate",
  type: "risk",
  params: hedgeAgentParams,
  init: () => null,
  decide(ctx, p, state) {
    const s = ctx.snapshot;
    const q = ctx.positionQty;
    if (!hasMarket(s) || q === 0) return { orders: [], state };
    const abs = Math.abs(q);
    const excess = Math.max(abs - p.inventory_threshold, abs - p.notional_threshold / s.mid, 0);
    const hedge = Math.min(excess * p.urgency_factor, p.max_hedge_size, abs);
    if (hedge <= 1e-3) return { orders: [], state };
    const slip = (s.mid * p.slippage_bps) / BPS;
    // Never short of the touch: a spread wider than the slippage must not leave the hedge unfilled.
    const order =
      q > 0
        ? take("sell", s.bid > 0 ? Math.min(s.mid - slip, s.bid) : s.mid - slip, hedge, "hedge_sell", true)
        : take("buy", s.ask > 0 ? Math.max(s.mid + slip, s.ask) : s.mid + slip, hedge, "hedge_buy", true);
    return { orders: [order], state, meta: { inventory: q, excess } };
  },
});
