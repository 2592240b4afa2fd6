import { describe, expect, it } from "vitest";
import { computeHowlMetrics, type HowlMetrics } from "../../src/review/howl-metrics.ts";
import { formatUsd, howlRecommendations } from "../../src/review/howl-recommend.ts";
import { type Line, pair, trip } from "./helpers.ts";

function metrics(lines: Line[]): HowlMetrics {
  const { trades, roundTrips, open } = pair(lines);
  return computeHowlMetrics(trades, roundTrips, open);
}

/** A neutral, healthy baseline that individual tests bend one field at a time. */
function base(over: Partial<HowlMetrics> = {}): HowlMetrics {
  return {
    ...metrics(Array.from({ length: 6 }, (_, i) => trip({ entry: 100, exit: 110, t: i * 1_000_000 })).flat()),
    ...over,
  };
}

const rules = (m: HowlMetrics) => howlRecommendations(m).map((r) => r.rule);

describe("howlRecommendations", () => {
  it("nothing to say without round trips", () => {
    expect(howlRecommendations(metrics([]))).toEqual([]);
  });

  it("FDR > 30 is critical, exactly 30 is a warning, 20 is fine", () => {
    const critical = howlRecommendations(base({ fdr: 30.01 }));
    expect(critical[0]).toMatchObject({ rule: "fdr", severity: "critical" });
    expect(critical[0]!.message).toContain("FDR");
    expect(howlRecommendations(base({ fdr: 30 }))[0]).toMatchObject({ rule: "fdr", severity: "warning" });
    expect(rules(base({ fdr: 20 }))).not.toContain("fdr");
  });

  it("FDR 100% from real trades produces an FDR recommendation", () => {
    const m = metrics(trip({ entry: 100, exit: 110, fee: 5 }));
    expect(m.fdr).toBe(100);
    expect(howlRecommendations(m)[0]!.message).toContain("FDR");
  });

  it("unbounded FDR (fees, no gross wins) is critical", () => {
    expect(howlRecommendations(metrics(trip({ entry: 100, exit: 90, fee: 1 })))[0]).toMatchObject({
      rule: "fdr",
      severity: "critical",
    });
  });

  it("win rate below 40% needs at least 5 round trips", () => {
    const five = metrics(
      Array.from({ length: 5 }, (_, i) => trip({ entry: 100, exit: 90, t: i * 1_000_000 })).flat(),
    );
    expect(howlRecommendations(five).find((r) => r.rule === "win_rate")!.message).toContain("Win rate");
    expect(rules(base({ win_rate: 39.9, total_round_trips: 4 }))).not.toContain("win_rate");
    expect(rules(base({ win_rate: 40 }))).not.toContain("win_rate");
  });

  it("monster dependency above 60% (with ≥ 5 round trips)", () => {
    expect(rules(base({ monster_dependency_pct: 61 }))).toContain("monster_dependency");
    expect(rules(base({ monster_dependency_pct: 60 }))).not.toContain("monster_dependency");
    expect(rules(base({ monster_dependency_pct: null }))).not.toContain("monster_dependency");
  });

  it("a loss streak of 5 suggests a circuit breaker", () => {
    expect(rules(base({ max_consecutive_losses: 5 }))).toContain("loss_streak");
    expect(rules(base({ max_consecutive_losses: 4 }))).not.toContain("loss_streak");
  });

  it("direction bias: a losing side with ≥ 3 trips while the other side wins", () => {
    const longLoses = base({
      long: { count: 3, wins: 0, win_rate: 0, net_pnl: -5 },
      short: { count: 1, wins: 1, win_rate: 100, net_pnl: 8 },
    });
    expect(howlRecommendations(longLoses).find((r) => r.rule === "direction_bias")!.message).toContain(
      "Reduce long bias",
    );
    const shortLoses = base({
      short: { count: 3, wins: 0, win_rate: 0, net_pnl: -5 },
      long: { count: 1, wins: 1, win_rate: 100, net_pnl: 8 },
    });
    expect(howlRecommendations(shortLoses).find((r) => r.rule === "direction_bias")!.message).toContain(
      "Reduce short bias",
    );
    const tooFew = base({
      long: { count: 2, wins: 0, win_rate: 0, net_pnl: -5 },
      short: { count: 1, wins: 1, win_rate: 100, net_pnl: 8 },
    });
    expect(rules(tooFew)).not.toContain("direction_bias");
  });

  it("fees above |gross PnL| with ≥ 3 round trips is critical", () => {
    const m = metrics(
      Array.from({ length: 3 }, (_, i) => trip({ entry: 100, exit: 101, fee: 1, t: i * 1_000_000 })).flat(),
    );
    const r = howlRecommendations(m).find((x) => x.rule === "fees_exceed_gross")!;
    expect(r.severity).toBe("critical");
    expect(r.message).toContain("CRITICAL");
  });

  it("flags an instrument that loses while the book wins", () => {
    const m = metrics([
      ...Array.from({ length: 3 }, (_, i) =>
        trip({ entry: 100, exit: 99, instrument: "SOL-PERP", t: i * 1_000_000 }),
      ).flat(),
      ...trip({ entry: 100, exit: 120, instrument: "ETH-PERP", t: 9_000_000 }),
    ]);
    expect(howlRecommendations(m).find((r) => r.rule === "instrument_drag")!.message).toContain("SOL-PERP");
  });

  it("5 clean winners: no major issues", () => {
    const m = metrics(
      Array.from({ length: 5 }, (_, i) =>
        trip({ entry: 100, exit: 110, fee: 0.01, t: i * 1_000_000 }),
      ).flat(),
    );
    expect(howlRecommendations(m)).toEqual([
      expect.objectContaining({ rule: "healthy", message: expect.stringContaining("No major issues") }),
    ]);
  });
});

describe("formatUsd", () => {
  it("signs after rounding to cents: a loss under half a cent is $+0.00, not $-0.00", () => {
    expect(formatUsd(-0.004)).toBe("$+0.00");
    expect(formatUsd(-0.005)).toBe("$+0.00");
    expect(formatUsd(-0.015)).toBe("$-0.02");
    expect(formatUsd(9)).toBe("$+9.00");
    expect(formatUsd(-6)).toBe("$-6.00");
  });
});
