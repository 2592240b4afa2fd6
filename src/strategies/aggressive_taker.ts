import { z } from "zod";
import { defineStrategy } from "./sdk.ts";
import { hasMarket, limitExposure, take, takePrice } from "./util.ts";

const aggressiveTakerParams = z.object({
  size: z
    .number()
    .positive()
    .default(2)
    .describe(
      "Combined size of the buy and the sell IOC sent each active tick, base units: buy = size·(0.5 + b), sell = size·(0.5 − b), each at least 1 % of size.",
    ),
  skip_ticks: z
    .number()
    .int()
    .min(0)
    .default(0)
    .describe(
      "Ticks skipped between trades: it trades only every (skip_ticks + 1)-th tick (0 = every tick).",
    ),
  bias_amplitude: z
    .number()
    .min(0)
    .max(0.49)
    .default(0.35)
    .describe(
      "Peak of the directional bias b = bias_amplitude·sin(2π·m / bias_period), the fraction of size moved from one side to the other (m counts the ticks that trade).",
    ),
  bias_period: z
    .number()
    .int()
    .min(3)
    .default(4)
    .describe(
      "Period of the bias sine, in trading ticks (at least 3: a sine sampled twice a period or less is always 0).",
    ),
  cross_bps: z
    .number()
    .min(0)
    .default(5)
    .describe(
      "How far beyond the touch the IOC limit goes, bps of the touch price (best ask for the buy, best bid for the sell).",
    ),
  max_position: z
    .number()
    .positive()
    .default(10)
    .describe(
      "Net position limit, base units: each IOC is trimmed so the position cannot pass ±max_position.",
    ),
});
type AggressiveTakerParams = z.infer<typeof aggressiveTakerParams>;

interface TakerState {
  n: number;
}

/**
 * Crosses the spread on both sides every active tick with a sinusoidal bias between them:
 * buy = size·(0.5 + b), sell = size·(0.5 − b), b = amplitude·sin(2πm/period), each at least 1 %.
 * The phase m counts trading ticks, not all ticks: counted over all ticks, a skip interval that
 * shares a factor with the period would sample the sine only at its zeros and erase the bias.
 */
export const aggressiveTaker = defineStrategy<AggressiveTakerParams, TakerState>({
  id: "aggressive_taker",
  description: "Crosses the spread with directional bias",
  type: "taker",
  params: aggressiveTakerParams,
  init: () => ({ n: 0 }),
  decide(ctx, p, state) {
    const s = ctx.snapshot;
    if (!hasMarket(s)) return { orders: [], state };
    const n = state.n + 1;
    if (p.skip_ticks > 0 && n % (p.skip_ticks + 1) !== 0) return { orders: [], state: { n } };
    const m = n / (p.skip_ticks + 1);
    const bias = p.bias_amplitude * Math.sin((2 * Math.PI * m) / p.bias_period);
    const buySize = Math.max(0.01 * p.size, p.size * (0.5 + bias));
    const sellSize = Math.max(0.01 * p.size, p.size * (0.5 - bias));
    const orders = limitExposure(
      [
        take("buy", takePrice("buy", s, p.cross_bps), buySize, "aggressive_buy"),
        take("sell", takePrice("sell", s, p.cross_bps), sellSize, "aggressive_sell"),
      ],
      ctx.positionQty,
      p.max_position,
      ctx.risk.reduceOnly,
    );
    return { orders, state: { n }, meta: { bias } };
  },
});
