import { wire } from "../../core/decimal.ts";
import { EXCLUSION_REASONS, type Exclusion, type WalletScore } from "./scoring.ts";

/** A wallet's score totals as published (decimal strings), shared by the API and `hl points score`. */
export function wireTotals(score: WalletScore) {
  return {
    total_points: wire(score.totalPoints),
    eligible_volume_usd: wire(score.eligibleVolumeUsd),
    provisional_points: wire(score.provisionalPoints),
    fills_total: score.fillsTotal,
    fills_eligible: score.fillsEligible,
    by_day: score.byDay.map((d) => ({
      date: d.date,
      points: wire(d.points),
      eligible_volume_usd: wire(d.eligibleVolumeUsd),
      capped_volume_usd: wire(d.cappedVolumeUsd),
    })),
    excluded: Object.fromEntries(EXCLUSION_REASONS.map((r) => [r, score.excluded[r]])) as Record<
      Exclusion,
      number
    >,
  };
}
