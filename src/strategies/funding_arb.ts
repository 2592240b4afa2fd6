import { z } from "zod";
import { buildQuotes, initVolState, quotingParams, stepVol, type VolState } from "./quoting/engine.ts";
import { ladderOrders } from "./quoting/ladder.ts";
import { defineStrategy } from "./sdk.ts";
import { BPS, clamp, hasMarket, mean, pushWindow } from "./util.ts";

const fundingArbParams = quotingParams.extend({
  divergence_threshold_bps: z
    .number()
    .min(0)
    .default(2)
    .describe(
      "Funding divergence (this venue's hourly rate minus the reference, bps per hour) that must be exceeded in absolute value before fair value and sizes are biased.",
    ),
  max_bias_bps: z
    .number()
    .positive()
    .default(5)
    .describe(
      "Cap on the fair-value bias, bps of mid; the size tilt is 30 % × |bias| / max_bias_bps (bigger asks and smaller bids when funding is rich, the reverse when cheap).",
    ),
  funding_weight: z
    .number()
    .min(0)
    .default(0.4)
    .describe(
      "Fraction of the funding divergence (bps per hour) turned into the fair-value bias (bps of mid), before the max_bias_bps cap.",
    ),
  funding_window: z
    .number()
    .int()
    .min(2)
    .default(24)
    .describe(
      "Ticks of this venue's own funding rate averaged into the reference when the snapshot carries no other venue's funding.",
    ),
  w_external: z
    .number()
    .min(0)
    .default(0.3)
    .describe(
      "Weight in fair value of the funding-biased reference mid·(1 − bias_bps/10,000), so fair value moves by bias × w_external / (w_mid + w_micro + w_external); 0 leaves only the size tilt.",
    ),
});
type FundingArbParams = z.infer<typeof fundingArbParams>;

interface FundingArbState {
  vol: VolState;
  fundings: number[];
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * Quoting-engine MM biased by funding dislocation: the divergence between this venue's hourly funding
 * and a reference (the median of other venues when the snapshot carries them, else this venue's own
 * recent average) shifts the fair value through the external-reference weight and skews sizes:
 * funding richer than the reference → longs overpay → lean short (lower fair value, bigger asks).
 */
export const fundingArb = defineStrategy<FundingArbParams, FundingArbState>({
  id: "funding_arb",
  description: "Cross-venue funding rate arbitrage — captures funding dislocations",
  type: "arb",
  params: fundingArbParams,
  needs: { assetContext: true, referenceFunding: true },
  init: () => ({ vol: initVolState(), fundings: [] }),
  decide(ctx, p, state) {
    const s = ctx.snapshot;
    if (!hasMarket(s)) return { orders: [], state };
    const { vol, state: volNext } = stepVol(state.vol, s.mid, s.timestampMs, ctx.tickSeconds, p.vol_window);
    const venues = Object.values(s.referenceFunding);
    const reference =
      venues.length > 0 ? median(venues) : state.fundings.length > 0 ? mean(state.fundings) : s.fundingRate;
    const divergenceBps = (s.fundingRate - reference) * BPS;
    const biasBps =
      Math.abs(divergenceBps) > p.divergence_threshold_bps
        ? clamp(divergenceBps * p.funding_weight, -p.max_bias_bps, p.max_bias_bps)
        : 0;
    const q = ctx.positionQty;
    const r = buildQuotes(p, {
      snapshot: s,
      inventory: q,
      drawdownPct: ctx.risk.drawdownPct,
      vol,
      externalRef: s.mid * (1 - biasBps / BPS),
    });
    const tilt = (Math.abs(biasBps) / p.max_bias_bps) * 0.3;
    const levels =
      biasBps === 0
        ? r.levels
        : r.levels.map((l) =>
            biasBps > 0
              ? { ...l, askSize: l.askSize * (1 + tilt), bidSize: l.bidSize * (1 - tilt) }
              : { ...l, askSize: l.askSize * (1 - tilt), bidSize: l.bidSize * (1 + tilt) },
          );
    const orders = ladderOrders(
      levels,
      s,
      { bid: "funding_bid", ask: "funding_ask" },
      q,
      p.inv_limit,
      ctx.risk.reduceOnly || r.reduceOnly,
    );
    return {
      orders,
      state: { vol: volNext, fundings: pushWindow(state.fundings, s.fundingRate, p.funding_window) },
      meta: {
        divergence_bps: divergenceBps,
        bias_bps: biasBps,
        hl_rate: s.fundingRate,
        reference_rate: reference,
      },
    };
  },
});
