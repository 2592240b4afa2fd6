import { describe, expect, it } from "vitest";
import {
  annotateMomentum,
  btcMacro,
  disqualify,
  fundingScore,
  marketStructureScore,
  type Opportunity,
  runScan,
  type ScanResult,
  stage1,
  stage2,
  type Technicals,
  technicalsScore,
} from "../../src/signals/scanner.ts";
import { scannerConfig } from "../../src/signals/scanner-config.ts";
import { bullish, candlesFrom, market, NOW } from "./fixtures.ts";

const cfg = scannerConfig();
const neutralMacro = btcMacro(cfg, [], []);

function tech(over: Partial<Technicals> = {}): Technicals {
  return {
    rsi1h: 50,
    rsi15m: 50,
    hourly_trend: "NEUTRAL",
    trend_4h: "neutral",
    trend_4h_strength: 0,
    patterns: [],
    vol_ratio_1h: 1,
    vol_ratio_15m: 1,
    chg1h: 0,
    chg4h: 0,
    chg24h: 0,
    ...over,
  };
}

describe("scanner config", () => {
  it("has default and aggressive presets; flags only override what they set", () => {
    expect(cfg.min_volume_24h).toBe(500_000);
    expect(cfg.top_n_deep).toBe(20);
    expect(cfg.score_threshold).toBe(150);
    expect(cfg.pillar_weights).toEqual({ market_structure: 0.35, technicals: 0.4, funding: 0.25 });
    const agg = scannerConfig("aggressive", { top_n_deep: undefined, min_volume_24h: undefined });
    expect([agg.min_volume_24h, agg.top_n_deep, agg.score_threshold]).toEqual([100_000, 30, 120]);
    expect(scannerConfig("aggressive", { score_threshold: 200 }).score_threshold).toBe(200);
    expect(() => scannerConfig("nope")).toThrow(/Unknown scanner preset/);
  });
});

describe("stage 0: BTC macro", () => {
  it("neutral without data; up/down from EMA5 vs EMA13 with the right modifiers", () => {
    expect(neutralMacro.trend).toBe("neutral");
    expect(neutralMacro.strength).toBe(0);
    const up = btcMacro(
      cfg,
      candlesFrom(Array.from({ length: 30 }, (_, i) => 100 + 2 * i)),
      candlesFrom([100, 101]),
    );
    expect(["up", "strong_up"]).toContain(up.trend);
    expect(up.diff_pct).toBeGreaterThan(0);
    expect(up.chg1h).toBeCloseTo(1, 3);
    expect(up.modifiers.LONG).toBeGreaterThan(0);
    const down = btcMacro(
      cfg,
      candlesFrom(Array.from({ length: 30 }, (_, i) => 200 - 2 * i)),
      candlesFrom([100, 99]),
    );
    expect(["down", "strong_down"]).toContain(down.trend);
    expect(down.modifiers.SHORT).toBeGreaterThan(0);
    expect(btcMacro(cfg, candlesFrom(Array(30).fill(100)), candlesFrom([1, 1])).trend).toBe("neutral");
  });
});

describe("stages 1 and 2", () => {
  it("keeps volume at or above the minimum and drops delisted markets", () => {
    const kept = stage1(cfg, [
      market("ETH", { volume_24h: 1_000_000 }),
      market("SOL", { volume_24h: 500_000 }),
      market("DOGE", { volume_24h: 100_000 }),
      market("OLD", { volume_24h: 9e9, delisted: true }),
    ]);
    expect(kept.map((m) => m.name)).toEqual(["ETH", "SOL"]);
  });

  it("ranks by volume × √OI (USD) and keeps the top N", () => {
    const top = stage2({ ...cfg, top_n_deep: 2 }, [
      market("A", { volume_24h: 1e6, open_interest: 1e4 }),
      market("B", { volume_24h: 5e6, open_interest: 5e4 }),
      market("C", { volume_24h: 10e6, open_interest: 10e4 }),
    ]);
    expect(top.map((m) => m.name)).toEqual(["C", "B"]);
  });
});

describe("stage 3: disqualifiers (in order)", () => {
  const m = market("X");
  const reason = (dir: "LONG" | "SHORT", t: Technicals, mk = m, macro = neutralMacro) =>
    disqualify(cfg, "X", dir, t, mk, macro)?.reason;

  it("counter-trend hourly", () => {
    expect(reason("LONG", tech({ hourly_trend: "DOWN" }))).toBe("counter_trend_hourly");
    expect(reason("SHORT", tech({ hourly_trend: "UP" }))).toBe("counter_trend_hourly");
  });
  it("extreme RSI: above 80 for a long, below 20 for a short (strict)", () => {
    expect(reason("LONG", tech({ rsi1h: 80.1 }))).toBe("extreme_rsi");
    expect(reason("LONG", tech({ rsi1h: 80 }))).toBeUndefined();
    expect(reason("SHORT", tech({ rsi1h: 19.9 }))).toBe("extreme_rsi");
    expect(reason("SHORT", tech({ rsi1h: 20 }))).toBeUndefined();
  });
  it("strong counter 4h trend only above strength 50", () => {
    expect(reason("LONG", tech({ trend_4h: "down", trend_4h_strength: 51 }))).toBe("counter_trend_4h_strong");
    expect(reason("LONG", tech({ trend_4h: "strong_down", trend_4h_strength: 50 }))).toBeUndefined();
    expect(reason("SHORT", tech({ trend_4h: "up", trend_4h_strength: 60 }))).toBe("counter_trend_4h_strong");
  });
  it("dying volume needs both ratios under 0.5", () => {
    expect(reason("LONG", tech({ vol_ratio_1h: 0.49, vol_ratio_15m: 0.49 }))).toBe("volume_dying");
    expect(reason("LONG", tech({ vol_ratio_1h: 0.49, vol_ratio_15m: 0.5 }))).toBeUndefined();
  });
  it("heavy unfavourable funding above 50 % a year (hourly ×8760)", () => {
    const hot = market("X", { funding_rate: 0.00006 }); // 52.6 %/yr
    expect(reason("LONG", tech(), hot)).toBe("heavy_unfavorable_funding");
    expect(reason("SHORT", tech(), hot)).toBeUndefined();
    const mild = market("X", { funding_rate: 0.00005 }); // 43.8 %/yr
    expect(reason("LONG", tech(), mild)).toBeUndefined();
    expect(reason("SHORT", tech(), market("X", { funding_rate: -0.00006 }))).toBe(
      "heavy_unfavorable_funding",
    );
  });
  it("BTC headwind at a modifier of −30 or below (inclusive)", () => {
    const strongDown = {
      ...neutralMacro,
      trend: "strong_down" as const,
      modifiers: cfg.macro_modifiers.strong_down,
    };
    expect(reason("LONG", tech(), m, strongDown)).toBe("btc_macro_headwind");
    expect(reason("SHORT", tech(), m, strongDown)).toBeUndefined();
    const down = { ...neutralMacro, trend: "down" as const, modifiers: cfg.macro_modifiers.down };
    expect(reason("LONG", tech(), m, down)).toBeUndefined();
  });
});

describe("stage 3: pillars", () => {
  it("market structure tiers on USD volume and USD OI", () => {
    const risks: string[] = [];
    const big = market("X", { volume_24h: 100e6, open_interest: 500_000, mark_price: 100 }); // OI $50M
    expect(marketStructureScore(big, tech({ vol_ratio_1h: 2.5 }), risks)).toBe(100);
    const small: string[] = [];
    const s = marketStructureScore(
      market("X", { volume_24h: 600_000, open_interest: 5000, mark_price: 100 }),
      tech({ vol_ratio_1h: 0.8 }),
      small,
    );
    expect(s).toBe(20); // 0 vol-tier + 0 ratio + 0 OI + 20 healthy OI/vol (0.83)
    expect(small).toContain("declining_volume");
    const steps = [
      [50e6 + 1, 30],
      [10e6 + 1, 20],
      [1e6 + 1, 10],
      [1e6, 0],
    ] as const;
    for (const [vol, pts] of steps) {
      const mk = market("X", { volume_24h: vol, open_interest: 0, mark_price: 1 });
      expect(marketStructureScore(mk, tech({ vol_ratio_1h: 0.5 }), [])).toBe(pts);
    }
    const imbalance: string[] = [];
    marketStructureScore(
      market("X", { volume_24h: 1e6, open_interest: 100_000, mark_price: 100 }),
      tech(),
      imbalance,
    );
    expect(imbalance).toContain("oi_volume_imbalance"); // OI $10M vs $1M volume = 10
  });

  it("technicals are floored at 0 and capped at 100", () => {
    const best = tech({
      trend_4h: "strong_up",
      trend_4h_strength: 100,
      hourly_trend: "UP",
      rsi1h: 30,
      rsi15m: 30,
      vol_ratio_1h: 2,
      vol_ratio_15m: 2,
      patterns: ["hammer", "bullish_engulfing", "doji"],
      chg4h: 5,
    });
    expect(technicalsScore("LONG", best, [])).toBe(100);
    expect(
      technicalsScore(
        "SHORT",
        tech({ trend_4h: "up", rsi1h: 30, vol_ratio_1h: 0.1, vol_ratio_15m: 0.1 }),
        [],
      ),
    ).toBe(0);
    // neutral hourly +5, RSI 50 (< 65) +5, average volume ratio 1.0 (> 0.7) +5
    expect(technicalsScore("LONG", tech(), [])).toBe(15);
  });

  it("funding: favourable ≥ neutral > unfavourable, bands at 5 / 15 / 30 % a year", () => {
    const h = (annPct: number) => annPct / 100 / 8760;
    expect(fundingScore("LONG", h(2), [])).toBe(35);
    expect(fundingScore("LONG", -h(10), [])).toBe(40);
    expect(fundingScore("LONG", -h(25), [])).toBe(40);
    expect(fundingScore("LONG", h(10), [])).toBe(20);
    const r1: string[] = [];
    expect(fundingScore("LONG", h(20), r1)).toBe(10);
    expect(r1).toContain("unfavorable_funding");
    const r2: string[] = [];
    expect(fundingScore("LONG", h(40), r2)).toBe(0);
    expect(r2).toContain("heavy_unfavorable_funding");
    expect(fundingScore("SHORT", h(10), [])).toBe(40);
  });
});

describe("full scan", () => {
  const markets = [
    market("ETH", { volume_24h: 80e6, open_interest: 200_000, mark_price: 110 }),
    market("SOL", { volume_24h: 30e6, open_interest: 100_000, mark_price: 110 }),
    market("DUST", { volume_24h: 50_000 }),
  ];

  it("produces a ranked opportunity when per-asset candles are fed (predecessor §7.1: dead inside WOLF)", () => {
    const r = runScan(cfg, {
      markets,
      btc4h: [],
      btc1h: [],
      candles: new Map([["ETH", bullish()]]),
      history: [],
      nowMs: NOW,
    });
    expect(r.stats.assets_scanned).toBe(3);
    expect(r.stats.passed_stage1).toBe(2);
    expect(r.stats.skipped_no_candles).toBe(1);
    expect(r.stats.deep_dived).toBe(1);
    expect(r.opportunities.length).toBe(1);
    const o = r.opportunities[0]!;
    expect(o.asset).toBe("ETH");
    expect(o.direction).toBe("LONG");
    expect(o.final_score).toBeGreaterThanOrEqual(cfg.score_threshold);
    expect(o.momentum).toEqual({ score_delta: 0, scan_streak: 0 });
    // without candles nothing can qualify
    const dead = runScan(cfg, { markets, btc4h: [], btc1h: [], candles: new Map(), history: [], nowMs: NOW });
    expect(dead.opportunities).toEqual([]);
  });

  it("the threshold filters: final ≥ threshold passes", () => {
    const r = runScan(
      { ...cfg, score_threshold: 999 },
      { markets, btc4h: [], btc1h: [], candles: new Map([["ETH", bullish()]]), history: [], nowMs: NOW },
    );
    expect(r.opportunities).toEqual([]);
  });

  it("momentum counts consecutive scans with the same asset and direction", () => {
    const prior = (dir: "LONG" | "SHORT", score: number): ScanResult =>
      ({ opportunities: [{ asset: "ETH", direction: dir, final_score: score }] }) as unknown as ScanResult;
    const o = { asset: "ETH", direction: "LONG", final_score: 200 } as Opportunity;
    expect(annotateMomentum(o, [prior("LONG", 180), prior("LONG", 190)]).momentum).toEqual({
      score_delta: 10,
      scan_streak: 2,
    });
    expect(annotateMomentum(o, [prior("LONG", 180), prior("SHORT", 190)]).momentum).toEqual({
      score_delta: 0,
      scan_streak: 0,
    });
  });
});
