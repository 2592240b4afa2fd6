import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { planAutoTune, TUNE_BOUNDS, TUNE_RULES, type TunableConfig } from "../../src/review/autotune.ts";
import { computeHowlMetrics, type HowlMetrics } from "../../src/review/howl-metrics.ts";

const CONFIG: TunableConfig = {
  scanner_score_threshold: 170,
  movers_confidence_threshold: 70,
  daily_loss_limit: 500,
  movers_immediate_auto_entry: true,
  max_same_direction: 2,
};

/** Metrics of a window: defaults are a healthy book of 6 winners. */
function window(over: Partial<HowlMetrics> = {}): HowlMetrics {
  return {
    ...computeHowlMetrics([], [], []),
    total_round_trips: 6,
    win_count: 6,
    win_rate: 100,
    gross_pnl: 60,
    gross_wins: 60,
    total_fees: 3,
    net_pnl: 57,
    fdr: 5,
    ...over,
  };
}

const plan = (metrics: HowlMetrics, config: TunableConfig = CONFIG, lastChangeMs: number | null = null) =>
  planAutoTune({ config, metrics, nowMs: 100 * 3_600_000, lastChangeMs });

describe("planAutoTune", () => {
  it("needs at least 5 round trips in the window", () => {
    const p = plan(window({ total_round_trips: 4, win_rate: 0 }));
    expect(p.changes).toEqual([]);
    expect(p.note).toContain("insufficient data");
  });

  it("respects the cooldown since the last change", () => {
    const p = plan(window({ win_rate: 10 }), CONFIG, 100 * 3_600_000 - TUNE_RULES.cooldownMs + 1);
    expect(p.changes).toEqual([]);
    expect(p.note).toContain("cooldown");
  });

  it("FDR > 30: scanner +10 and immediate auto-entry off; FDR > 20: movers +5", () => {
    expect(plan(window({ fdr: 35 })).changes).toEqual([
      expect.objectContaining({ param: "scanner_score_threshold", old: 170, new: 180 }),
      expect.objectContaining({ param: "movers_immediate_auto_entry", old: true, new: false }),
    ]);
    expect(plan(window({ fdr: 25 })).changes).toEqual([
      expect.objectContaining({ param: "movers_confidence_threshold", old: 70, new: 75 }),
    ]);
  });

  it("one change per parameter: FDR and win-rate rules both raising the scanner give +10 once, reasons joined", () => {
    const p = plan(window({ fdr: 35, win_rate: 30 }));
    const scanner = p.changes.filter((c) => c.param === "scanner_score_threshold");
    expect(scanner).toHaveLength(1);
    expect(scanner[0]).toMatchObject({ new: 180 });
    expect(scanner[0]!.reason).toContain("FDR");
    expect(scanner[0]!.reason).toContain("win rate");
    expect(p.config.movers_confidence_threshold).toBe(80);
  });

  it("loss streaks cut the daily loss limit by 20%", () => {
    expect(plan(window({ max_consecutive_losses: 5 })).config.daily_loss_limit).toBe(400);
  });

  it("direction bias caps same-direction slots at 1 (both sides)", () => {
    const longBias = window({
      long: { count: 3, wins: 0, win_rate: 0, net_pnl: -5 },
      short: { count: 3, wins: 3, win_rate: 100, net_pnl: 9 },
    });
    expect(plan(longBias).config.max_same_direction).toBe(1);
    const shortBias = window({
      short: { count: 3, wins: 0, win_rate: 0, net_pnl: -5 },
      long: { count: 3, wins: 3, win_rate: 100, net_pnl: 9 },
    });
    expect(plan(shortBias).config.max_same_direction).toBe(1);
  });

  it("clamps to the bounds", () => {
    const p = plan(window({ fdr: 35, win_rate: 10 }), {
      ...CONFIG,
      scanner_score_threshold: 275,
      movers_confidence_threshold: 92,
    });
    expect(p.config.scanner_score_threshold).toBe(TUNE_BOUNDS.scanner_score_threshold.max);
    expect(p.config.movers_confidence_threshold).toBe(TUNE_BOUNDS.movers_confidence_threshold.max);
    const floor = plan(window({ max_consecutive_losses: 9 }), { ...CONFIG, daily_loss_limit: 55 });
    expect(floor.config.daily_loss_limit).toBe(TUNE_BOUNDS.daily_loss_limit.min);
  });

  it("emergency (fees > |gross|) tightens to the floors but never lowers a stricter threshold (predecessor set 280 → 250)", () => {
    const emergency = window({ total_fees: 80, gross_pnl: 60, net_pnl: -20 });
    const p = plan(emergency);
    expect(p.config).toMatchObject({
      scanner_score_threshold: 250,
      movers_confidence_threshold: 90,
      movers_immediate_auto_entry: false,
    });
    const strict = plan(emergency, {
      ...CONFIG,
      scanner_score_threshold: 280,
      movers_confidence_threshold: 95,
    });
    expect(strict.config.scanner_score_threshold).toBe(280);
    expect(strict.config.movers_confidence_threshold).toBe(95);
    expect(strict.changes.map((c) => c.param)).toEqual(["movers_immediate_auto_entry"]);
  });

  it("tightening rules never loosen anything, whatever the config and metrics (property)", () => {
    fc.assert(
      fc.property(
        fc.record({
          scanner: fc.integer({ min: 0, max: 400 }),
          movers: fc.integer({ min: 0, max: 120 }),
          loss: fc.integer({ min: 1, max: 10_000 }),
          fdr: fc.option(fc.integer({ min: 0, max: 200 })),
          winRate: fc.integer({ min: 0, max: 49 }),
          fees: fc.integer({ min: 0, max: 200 }),
          gross: fc.integer({ min: -200, max: 200 }),
          streak: fc.integer({ min: 0, max: 10 }),
        }),
        (g) => {
          const config = {
            ...CONFIG,
            scanner_score_threshold: g.scanner,
            movers_confidence_threshold: g.movers,
            daily_loss_limit: g.loss,
          };
          const p = plan(
            window({
              fdr: g.fdr,
              win_rate: g.winRate,
              total_fees: g.fees,
              gross_pnl: g.gross,
              net_pnl: g.gross - g.fees,
              max_consecutive_losses: g.streak,
            }),
            config,
          );
          expect(p.config.scanner_score_threshold).toBeGreaterThanOrEqual(config.scanner_score_threshold);
          expect(p.config.movers_confidence_threshold).toBeGreaterThanOrEqual(
            config.movers_confidence_threshold,
          );
          expect(p.config.daily_loss_limit).toBeLessThanOrEqual(config.daily_loss_limit);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("relaxes the scanner a little only in a clearly healthy window, never below 170", () => {
    expect(plan(window(), { ...CONFIG, scanner_score_threshold: 200 }).changes).toEqual([
      expect.objectContaining({ param: "scanner_score_threshold", old: 200, new: 195 }),
    ]);
    expect(plan(window(), { ...CONFIG, scanner_score_threshold: 172 }).config.scanner_score_threshold).toBe(
      170,
    );
    expect(plan(window(), CONFIG).changes).toEqual([]);
  });

  it("every change comes with a param_change memory event", () => {
    const p = plan(window({ fdr: 35 }));
    expect(p.event).toMatchObject({ event_type: "param_change", timestamp_ms: 100 * 3_600_000 });
    expect(p.event!.payload.adjustments).toEqual(p.changes);
    expect(p.event!.summary).toBe(
      "Config adjusted: scanner_score_threshold: 170->180; movers_immediate_auto_entry: true->false",
    );
    expect(plan(window()).event).toBeNull();
  });
});
