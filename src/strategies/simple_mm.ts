import { z } from "zod";
import { defineStrategy } from "./sdk.ts";
import { BPS, hasMarket, limitExposure, passive, quote } from "./util.ts";

const simpleMmParams = z.object({
  spread_bps: z
    .number()
    .positive()
    .default(10)
    .describe(
      "Full quoted spread, bps of mid: post-only bid at mid − spread/2 and ask at mid + spread/2, each kept short of the opposite best price.",
    ),
  base_size: z
    .number()
    .positive()
    .default(1)
    .describe("Size of each of the two quotes, base units (the adding side is trimmed at max_inventory)."),
  max_inventory: z
    .number()
    .positive()
    .default(10)
    .describe(
      "Net position limit, base units: the adding side's quote is trimmed so the position cannot pass ±max_inventory and stops at it, while the unwinding side keeps quoting.",
    ),
});
type SimpleMmParams = z.infer<typeof simpleMmParams>;

/** Symmetric post-only bid/ask around mid, half the spread on each side. */
export const simpleMm = defineStrategy<SimpleMmParams, null>({
  id: "simple_mm",
  description: "Symmetric bid/ask quoting around mid price",
  type: "mm",
  params: simpleMmParams,
  init: () => null,
  decide(ctx, p, state) {
    const s = ctx.snapshot;
    if (!hasMarket(s)) return { orders: [], state };
    const half = (s.mid * p.spread_bps) / BPS / 2;
    const orders = limitExposure(
      [
        quote("buy", passive("buy", s.mid - half, s), p.base_size, "mm_bid"),
        quote("sell", passive("sell", s.mid + half, s), p.base_size, "mm_ask"),
      ],
      ctx.positionQty,
      p.max_inventory,
      ctx.risk.reduceOnly,
    );
    return { orders, state };
  },
});
