import { z } from "zod";
import { defineStrategy, type OrderIntent } from "./sdk.ts";
import { BPS, hasMarket, limitExposure, mean, pushWindow, take } from "./util.ts";

const meanReversionParams = z.object({
  window: z
    .number()
    .int()
    .min(2)
    .default(20)
    .describe(
      "Ticks of mid in the simple moving average, the current one included; nothing is traded until the window is full.",
    ),
  threshold_bps: z
    .number()
    .positive()
    .default(30)
    .describe(
      "Deviation of mid from the SMA, bps of the SMA, beyond which it sells (above) or buys (below) `size` by IOC at the touch, again on every tick it stays beyond.",
    ),
  size: z
    .number()
    .positive()
    .default(1)
    .describe(
      "Size of each entry order, base units; exits (mid back at or through the SMA) close the whole position.",
    ),
  max_position: z
    .number()
    .positive()
    .default(5)
    .describe("Net position limit, base units: entries are trimmed so |position| never exceeds it."),
});
type MeanReversionParams = z.infer<typeof meanReversionParams>;

interface MeanReversionState {
  mids: number[];
}

/**
 * Fades deviations from the simple moving average (which includes the current mid): above
 * +threshold sell, below −threshold buy, each IOC at the touch and never beyond max_position in
 * total; a position is closed once price is back at or through the average.
 */
export const meanReversion = defineStrategy<MeanReversionParams, MeanReversionState>({
  id: "mean_reversion",
  description: "Trade when price deviates from SMA",
  type: "signal",
  params: meanReversionParams,
  init: () => ({ mids: [] }),
  decide(ctx, p, state) {
    const s = ctx.snapshot;
    if (!hasMarket(s)) return { orders: [], state };
    const mids = pushWindow(state.mids, s.mid, p.window);
    if (mids.length < p.window) return { orders: [], state: { mids } };
    const sma = mean(mids);
    const devBps = ((s.mid - sma) / sma) * BPS;
    const q = ctx.positionQty;
    const raw: OrderIntent[] = [];
    if (devBps > p.threshold_bps) raw.push(take("sell", s.bid > 0 ? s.bid : s.mid, p.size, "overbought"));
    else if (devBps < -p.threshold_bps) raw.push(take("buy", s.ask > 0 ? s.ask : s.mid, p.size, "oversold"));
    else if (q > 0 && devBps >= 0) raw.push(take("sell", s.bid > 0 ? s.bid : s.mid, q, "revert_exit", true));
    else if (q < 0 && devBps <= 0) raw.push(take("buy", s.ask > 0 ? s.ask : s.mid, -q, "revert_exit", true));
    const orders = limitExposure(raw, q, p.max_position, ctx.risk.reduceOnly);
    return { orders, state: { mids }, meta: { sma, deviation_bps: devBps } };
  },
});
