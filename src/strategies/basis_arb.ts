import { z } from "zod";
import { defineStrategy, type OrderIntent } from "./sdk.ts";
import { BPS, hasMarket, limitExposure, mean, pushWindow, take } from "./util.ts";

const basisArbParams = z.object({
  basis_threshold_bps: z
    .number()
    .positive()
    .default(1500)
    .describe(
      "Annualised basis, bps (mean hourly funding × 24 × 365 × 10,000), beyond which a position of `size` is held (short when positive, long when negative); it goes flat inside half of it.",
    ),
  size: z
    .number()
    .positive()
    .default(1)
    .describe(
      "Target absolute position, base units, while the basis is beyond the threshold; only the difference to the current position is traded (IOC at the touch), so it never pyramids.",
    ),
  funding_window: z
    .number()
    .int()
    .min(3)
    .default(10)
    .describe(
      "Funding-rate samples, one per tick, averaged into the basis; nothing is traded before 3 samples exist.",
    ),
});
type BasisArbParams = z.infer<typeof basisArbParams>;

interface BasisArbState {
  fundings: number[];
}

/** Hyperliquid funds every hour: annualised bps = hourly rate × 24 × 365 × 10,000. */
const HOURS_PER_YEAR = 24 * 365;

/**
 * Trades the basis implied by funding: persistently positive funding (contango, longs pay) → hold a
 * short of `size` to collect it; negative (backwardation) → hold a long. The position is a target,
 * not an increment: the strategy only trades the difference, and goes flat once the basis falls
 * inside half the threshold. Orders are IOC at the touch.
 */
export const basisArb = defineStrategy<BasisArbParams, BasisArbState>({
  id: "basis_arb",
  description: "Basis arbitrage — trades implied basis from funding rate",
  type: "arb",
  params: basisArbParams,
  needs: { assetContext: true },
  init: () => ({ fundings: [] }),
  decide(ctx, p, state) {
    const s = ctx.snapshot;
    if (!hasMarket(s)) return { orders: [], state };
    const fundings = pushWindow(state.fundings, s.fundingRate, p.funding_window);
    if (fundings.length < 3) return { orders: [], state: { fundings } };
    const basisAnnBps = mean(fundings) * HOURS_PER_YEAR * BPS;
    const q = ctx.positionQty;
    let target: number;
    if (basisAnnBps > p.basis_threshold_bps) target = -p.size;
    else if (basisAnnBps < -p.basis_threshold_bps) target = p.size;
    else if (Math.abs(basisAnnBps) < p.basis_threshold_bps / 2) target = 0;
    else target = Math.sign(q) === -Math.sign(basisAnnBps) ? q : 0;
    const diff = target - q;
    const raw: OrderIntent[] = [];
    if (Math.abs(diff) > 1e-9) {
      const tag =
        target === 0
          ? "basis_exit"
          : q !== 0 && Math.sign(target) !== Math.sign(q)
            ? "close_wrong_side"
            : target < 0
              ? "short_contango"
              : "long_backwardation";
      raw.push(
        diff > 0
          ? take("buy", s.ask > 0 ? s.ask : s.mid, diff, tag)
          : take("sell", s.bid > 0 ? s.bid : s.mid, -diff, tag),
      );
    }
    const orders = limitExposure(raw, q, Math.max(p.size, Math.abs(q)), ctx.risk.reduceOnly);
    return { orders, state: { fundings }, meta: { basis_ann_bps: basisAnnBps, target } };
  },
});
