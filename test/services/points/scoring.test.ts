import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { D, dec } from "../../../src/core/decimal.ts";
import {
  BTCSWP_RULES,
  fillPoints,
  type ScoringFill,
  scoreWallet,
  usd,
} from "../../../src/services/points/scoring.ts";

const NOON = Date.UTC(2026, 2, 10, 12);
const MIDNIGHT = Date.UTC(2026, 2, 11);

/** A fill of `usd` notional at px (sz = usd/px, exact when it terminates within 18 decimals). */
function fill(over: Partial<ScoringFill> & { usd?: string } = {}): ScoringFill {
  const px = over.px ?? "100000";
  return {
    time: over.time ?? NOON,
    px,
    sz:
      over.sz ??
      dec(over.usd ?? "1000")
        .div(px)
        .toDecimalPlaces(18)
        .toFixed(),
    crossed: over.crossed ?? false,
    mark: over.mark === undefined ? "100000" : over.mark,
    attribution: over.attribution === undefined ? "confirmed" : over.attribution,
  };
}

function pointsOf(f: ScoringFill): string {
  const { outcomes } = scoreWallet(BTCSWP_RULES, [f]);
  return fillPoints(BTCSWP_RULES, outcomes[0]!).toFixed();
}

describe("points scoring: public worked examples", () => {
  it("$1,000 in-band maker fill scores 3.0", () => {
    expect(pointsOf(fill())).toBe("3");
  });
  it("$1,000 in-band taker fill scores 2.25", () => {
    expect(pointsOf(fill({ crossed: true }))).toBe("2.25");
  });
  it("$1,000 fill outside ±25 bps scores 0", () => {
    const { outcomes, score } = scoreWallet(BTCSWP_RULES, [fill({ px: "100300" })]);
    expect(fillPoints(BTCSWP_RULES, outcomes[0]!).toFixed()).toBe("0");
    expect(score.excluded.out_of_band).toBe(1);
  });
  it("volume is px·sz in decimal", () => {
    const { outcomes, score } = scoreWallet(BTCSWP_RULES, [
      fill({ px: "75012.5", sz: "0.01333", mark: "75000" }),
    ]);
    expect(usd(outcomes[0]!.volume).toFixed()).toBe("999.916625");
    expect(score.totalPoints.toFixed()).toBe("2.999749875");
  });
});

describe("points scoring: proximity band", () => {
  const inBand = (px: string) =>
    scoreWallet(BTCSWP_RULES, [fill({ px, mark: "100000" })]).score.excluded.out_of_band === 0;
  it("exactly 25 bps away counts as inside, on both sides", () => {
    expect(inBand("100250")).toBe(true);
    expect(inBand("99750")).toBe(true);
  });
  it("just beyond 25 bps is outside", () => {
    expect(inBand("100250.000001")).toBe(false);
    expect(inBand("99749.999999")).toBe(false);
  });
  it("a fill on the edge scores", () => {
    expect(pointsOf(fill({ px: "100250", usd: "1002.5" }))).toBe("3.0075");
  });
});

describe("points scoring: exclusions", () => {
  it("no eligible builder excludes the fill", () => {
    const { score } = scoreWallet(BTCSWP_RULES, [fill({ attribution: null })]);
    expect(score.excluded.no_builder).toBe(1);
    expect(score.totalPoints.isZero()).toBe(true);
  });
  it("a fill without a stored mark is excluded as no_mark, never scored against a guess", () => {
    const { score } = scoreWallet(BTCSWP_RULES, [fill({ mark: null })]);
    expect(score.excluded).toEqual({ out_of_band: 0, no_builder: 0, capped: 0, no_mark: 1 });
    expect(score.fillsEligible).toBe(0);
    expect(score.totalPoints.isZero()).toBe(true);
  });
  it("provisional attribution scores and is reported apart", () => {
    const { score } = scoreWallet(BTCSWP_RULES, [
      fill(),
      fill({ attribution: "provisional", crossed: true }),
    ]);
    expect(score.totalPoints.toFixed()).toBe("5.25");
    expect(score.provisionalPoints.toFixed()).toBe("2.25");
  });
});

describe("points scoring: daily cap", () => {
  it("caps 50,000 USD per UTC day in fill-time order, counting a straddling fill partially, and resets at midnight", () => {
    const fills = [
      fill({ time: MIDNIGHT - 3_000, usd: "30000" }), // 30k eligible
      fill({ time: MIDNIGHT - 2_000, usd: "30000", crossed: true }), // straddles: 20k eligible, 10k capped
      fill({ time: MIDNIGHT - 1_000, usd: "5000" }), // nothing left: capped
      fill({ time: MIDNIGHT, usd: "10000" }), // new UTC day
    ];
    const { outcomes, score } = scoreWallet(BTCSWP_RULES, fills);
    expect(outcomes.map((o) => usd(o.eligible).toFixed())).toEqual(["30000", "20000", "0", "10000"]);
    expect(outcomes.map((o) => o.excluded)).toEqual([null, null, "capped", null]);
    // day 1: 30k maker → 90; 20k taker → 45. day 2: 10k maker → 30.
    expect(
      score.byDay.map((d) => [
        d.date,
        d.points.toFixed(),
        d.eligibleVolumeUsd.toFixed(),
        d.cappedVolumeUsd.toFixed(),
      ]),
    ).toEqual([
      ["2026-03-10", "135", "50000", "15000"],
      ["2026-03-11", "30", "10000", "0"],
    ]);
    expect(score.totalPoints.toFixed()).toBe("165");
    expect(score.eligibleVolumeUsd.toFixed()).toBe("60000");
    expect(score.excluded.capped).toBe(1);
    expect(score.fillsEligible).toBe(3);
  });

  it("consumes the cap in time order even when fills arrive out of order", () => {
    const late = fill({ time: NOON + 1, usd: "50000", crossed: true });
    const early = fill({ time: NOON, usd: "50000" });
    const { score } = scoreWallet(BTCSWP_RULES, [late, early]);
    expect(score.totalPoints.toFixed()).toBe("150"); // the early maker fill takes the whole cap
  });

  it("excluded fills do not consume the cap", () => {
    const { score } = scoreWallet(BTCSWP_RULES, [
      fill({ usd: "50000", px: "101000" }),
      fill({ time: NOON + 1, usd: "50000", attribution: null }),
      fill({ time: NOON + 2, usd: "50000", mark: null }),
      fill({ time: NOON + 3, usd: "50000" }),
    ]);
    expect(score.totalPoints.toFixed()).toBe("150");
  });

  it("eligible volume never exceeds the cap on any day (property)", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            t: fc.integer({ min: 0, max: 3 * 86_400_000 }),
            usd: fc.integer({ min: 1, max: 40_000 }),
            taker: fc.boolean(),
          }),
          {
            maxLength: 40,
          },
        ),
        (rows) => {
          const { score } = scoreWallet(
            BTCSWP_RULES,
            rows.map((r) => fill({ time: MIDNIGHT + r.t, usd: String(r.usd), crossed: r.taker })),
          );
          for (const d of score.byDay) expect(d.eligibleVolumeUsd.lte(50_000)).toBe(true);
          const total = rows.reduce((a, r) => a.plus(r.usd), new D(0));
          const capped = score.byDay.reduce((a, d) => a.plus(d.cappedVolumeUsd), new D(0));
          expect(score.eligibleVolumeUsd.plus(capped).eq(total)).toBe(true);
        },
      ),
    );
  });
});
