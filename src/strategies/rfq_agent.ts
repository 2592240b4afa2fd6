import { z } from "zod";
import { defineStrategy } from "./sdk.ts";
import { BPS, hasMarket, limitExposure, passive, quote } from "./util.ts";

const rfqAgentParams = z.object({
  min_size: z
    .number()
    .positive()
    .default(0.5)
    .describe("Block size quoted on each side, base units (a fixed size despite the name, not a minimum)."),
  spread_bps: z
    .number()
    .positive()
    .default(15)
    .describe(
      "Full spread of the block quotes, bps of mid: Gtc bid at mid − spread/2 and ask at mid + spread/2, each kept short of the opposite best price.",
    ),
  max_position: z
    .number()
    .positive()
    .default(15)
    .describe(
      "Net position limit, base units: the adding side is trimmed so the position cannot pass ±max_position, while the unwinding side keeps quoting.",
    ),
});
type RfqAgentParams = z.infer<typeof rfqAgentParams>;

/**
 * Rests block-size Gtc quotes at mid ± half the spread for RFQ-style flow; capacity is bounded by
 * max_position on the adding side only, so a full book still quotes the unwind.
 */
export const rfqAgent = defineStrategy<RfqAgentParams, null>({
  id: "rfq_agent",
  description: "Block-size liquidity for dark RFQ flow",
  type: "rfq",
  params: rfqAgentParams,
  init: () => null,
  decide(ctx, p, state) {
    const s = ctx.snapshot;
    if (!hasMarket(s)) return { orders: [], state };
    const half = (s.mid * p.spread_bps) / BPS / 2;
    const orders = limitExposure(
      [
        quote("buy", passive("buy", s.mid - half, s), p.min_size, "rfq_bid", "Gtc"),
        quote("sell", passive("sell", s.mid + half, s), p.min_size, "rfq_ask", "Gtc"),
      ],
      ctx.positionQty,
      p.max_position,
      ctx.risk.reduceOnly,
    );
    return { orders, state, meta: { capacity: p.max_position - Math.abs(ctx.positionQty) } };
  },
});
