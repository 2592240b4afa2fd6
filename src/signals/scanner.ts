import type { Candle } from "./candles.ts";
import type { MarketCtx } from "./market.ts";
import type { ScannerConfig } from "./scanner-config.ts";
import {
  candlePatterns,
  ema,
  fundingAnnualPct,
  type HourlyTrend,
  hourlyTrend,
  type Pattern,
  priceChanges,
  rsi,
  type Trend4h,
  trend4h,
  trendLabel,
  volumeRatio,
} from "./technicals.ts";

/**
 * The opportunity scanner: a staged funnel over every perp, pure (data in, result out).
 * Stage 0 BTC macro → 1 volume screen → 2 top-N by liquidity → 3 per-direction disqualifiers and
 * three-pillar score → 4 ranking, momentum annotation and threshold.
 */

type Side = "LONG" | "SHORT";

export interface AssetCandles {
  "4h": Candle[];
  "1h": Candle[];
  "15m": Candle[];
}

interface BtcMacro {
  trend: Trend4h;
  strength: number;
  ema5: number;
  ema13: number;
  diff_pct: number;
  chg1h: number;
  modifiers: { LONG: number; SHORT: number };
}

export interface Technicals {
  rsi1h: number;
  rsi15m: number;
  hourly_trend: HourlyTrend;
  trend_4h: Trend4h;
  trend_4h_strength: number;
  patterns: Pattern[];
  vol_ratio_1h: number;
  vol_ratio_15m: number;
  chg1h: number;
  chg4h: number;
  chg24h: number;
}

export interface Opportunity {
  asset: string;
  direction: Side;
  final_score: number;
  raw_score: number;
  macro_modifier: number;
  pillar_scores: { market_structure: number; technicals: number; funding: number };
  technicals: Technicals;
  market_data: {
    vol24h: number;
    oi_usd: number;
    funding_rate: number;
    funding_ann_pct: number;
    mark_price: number;
  };
  /** Always present: how many consecutive recent scans listed this asset in this direction. */
  momentum: { score_delta: number; scan_streak: number };
  risks: string[];
}

interface Disqualified {
  asset: string;
  direction: Side;
  reason: string;
  details: Record<string, number | string>;
}

export interface ScanResult {
  scan_time_ms: number;
  btc_macro: BtcMacro;
  opportunities: Opportunity[];
  disqualified: Disqualified[];
  stats: {
    assets_scanned: number;
    passed_stage1: number;
    deep_dived: number;
    skipped_no_candles: number;
    qualified: number;
    disqualified_count: number;
    scan_duration_ms: number;
  };
}

const round = (x: number, dp: number) => {
  const f = 10 ** dp;
  return Math.round(x * f) / f;
};

export function btcMacro(cfg: ScannerConfig, btc4h: readonly Candle[], btc1h: readonly Candle[]): BtcMacro {
  if (btc4h.length === 0 || btc1h.length === 0) {
    return {
      trend: "neutral",
      strength: 0,
      ema5: 0,
      ema13: 0,
      diff_pct: 0,
      chg1h: 0,
      modifiers: cfg.macro_modifiers.neutral,
    };
  }
  const closes = btc4h.map((k) => k.c);
  const e5 = ema(closes, 5).at(-1)!;
  const e13 = ema(closes, 13).at(-1)!;
  const diff = e13 === 0 ? 0 : ((e5 - e13) / e13) * 100;
  const c1 = btc1h.map((k) => k.c);
  const prev = c1.at(-2);
  const chg1h = c1.length >= 2 && prev ? ((c1.at(-1)! - prev) / prev) * 100 : 0;
  const trend = trendLabel(diff);
  return {
    trend,
    strength: Math.min(Math.trunc(Math.abs(diff) * 20), 100),
    ema5: round(e5, 2),
    ema13: round(e13, 2),
    diff_pct: round(diff, 3),
    chg1h: round(chg1h, 3),
    modifiers: cfg.macro_modifiers[trend],
  };
}

/** Stage 1: liquid, listed perps (volume at the minimum passes). */
export function stage1(cfg: ScannerConfig, markets: readonly MarketCtx[]): MarketCtx[] {
  return markets.filter((m) => !m.delisted && m.volume_24h >= cfg.min_volume_24h);
}

/** Stage 2: the top N by volume × √OI, both in USD. */
export function stage2(cfg: ScannerConfig, passed: readonly MarketCtx[]): MarketCtx[] {
  const key = (m: MarketCtx) => m.volume_24h * Math.sqrt(Math.max(m.open_interest_usd, 1));
  return [...passed].sort((a, b) => key(b) - key(a)).slice(0, cfg.top_n_deep);
}

function computeTechnicals(c: AssetCandles): Technicals {
  const closes1h = c["1h"].map((k) => k.c);
  const closes15 = c["15m"].map((k) => k.c);
  const t4 = trend4h(c["4h"]);
  return {
    rsi1h: rsi(closes1h),
    rsi15m: rsi(closes15),
    hourly_trend: hourlyTrend(c["1h"]),
    trend_4h: t4.trend,
    trend_4h_strength: t4.strength,
    patterns: candlePatterns(c["1h"]),
    vol_ratio_1h: volumeRatio(c["1h"]),
    vol_ratio_15m: c["15m"].length ? volumeRatio(c["15m"]) : 1,
    ...priceChanges(c["1h"]),
  };
}

const isUp = (t: Trend4h) => t === "up" || t === "strong_up";
const isDown = (t: Trend4h) => t === "down" || t === "strong_down";

/** Stage 3 hard disqualifiers, first match wins; null when the direction survives. */
export function disqualify(
  cfg: ScannerConfig,
  asset: string,
  dir: Side,
  t: Technicals,
  m: MarketCtx,
  macro: BtcMacro,
): Disqualified | null {
  const th = cfg.disqualify_thresholds;
  const long = dir === "LONG";
  const dq = (reason: string, details: Record<string, number | string>) => ({
    asset,
    direction: dir,
    reason,
    details,
  });
  if ((long && t.hourly_trend === "DOWN") || (!long && t.hourly_trend === "UP")) {
    return dq("counter_trend_hourly", { hourly_trend: t.hourly_trend });
  }
  if ((long && t.rsi1h > th.extreme_rsi_long) || (!long && t.rsi1h < th.extreme_rsi_short)) {
    return dq("extreme_rsi", { rsi1h: t.rsi1h });
  }
  const counter4h = long ? isDown(t.trend_4h) : isUp(t.trend_4h);
  if (counter4h && t.trend_4h_strength > th.counter_trend_4h_strength) {
    return dq("counter_trend_4h_strong", { trend_4h: t.trend_4h, strength: t.trend_4h_strength });
  }
  if (t.vol_ratio_1h < th.volume_dying_ratio && t.vol_ratio_15m < th.volume_dying_ratio) {
    return dq("volume_dying", { vol_ratio_1h: t.vol_ratio_1h, vol_ratio_15m: t.vol_ratio_15m });
  }
  const ann = fundingAnnualPct(m.funding_rate);
  const unfavourable = long ? m.funding_rate > 0 : m.funding_rate < 0;
  if (unfavourable && ann > th.heavy_funding_annualized_pct) {
    return dq("heavy_unfavorable_funding", { funding_ann_pct: round(ann, 1) });
  }
  const mod = macro.modifiers[dir];
  if (mod <= th.btc_headwind_modifier)
    return dq("btc_macro_headwind", { macro_modifier: mod, btc_trend: macro.trend });
  return null;
}

/** Market structure pillar, 0–100: liquidity, volume acceleration, OI depth and OI/volume health (USD). */
export function marketStructureScore(m: MarketCtx, t: Technicals, risks: string[]): number {
  let s = 0;
  if (m.volume_24h > 50e6) s += 30;
  else if (m.volume_24h > 10e6) s += 20;
  else if (m.volume_24h > 1e6) s += 10;
  if (t.vol_ratio_1h > 2.0) s += 30;
  else if (t.vol_ratio_1h > 1.3) s += 20;
  else if (t.vol_ratio_1h > 1.0) s += 10;
  else risks.push("declining_volume");
  if (m.open_interest_usd > 10e6) s += 20;
  else if (m.open_interest_usd > 1e6) s += 10;
  if (m.volume_24h > 0) {
    const ratio = m.open_interest_usd / m.volume_24h;
    if (ratio >= 0.3 && ratio <= 3.0) s += 20;
    else risks.push("oi_volume_imbalance");
  }
  return Math.min(s, 100);
}

/** Technicals pillar, 0–100 (capped: the predecessor let it reach 110). */
export function technicalsScore(dir: Side, t: Technicals, risks: string[]): number {
  const long = dir === "LONG";
  let s = 0;
  const aligned = long ? isUp(t.trend_4h) : isDown(t.trend_4h);
  const counter = long ? isDown(t.trend_4h) : isUp(t.trend_4h);
  if (aligned) s += Math.min(20, 10 + Math.floor(t.trend_4h_strength / 10));
  else if (counter) {
    s -= 5;
    risks.push("4h_counter_trend");
  }
  if (t.hourly_trend === (long ? "UP" : "DOWN")) s += 20;
  else if (t.hourly_trend === "NEUTRAL") s += 5;
  else {
    s -= 30;
    risks.push("hourly_counter_trend");
  }
  const r1 = t.rsi1h;
  const r15 = t.rsi15m;
  if (long) {
    if (r1 < 35) s += 20;
    else if (r1 < 50) s += 15;
    else if (r1 < 65) s += 5;
    else risks.push("rsi_elevated");
    if (r1 < 40 && r15 < 40) s += 10;
    else if (r1 < 50 && r15 < 50) s += 5;
  } else {
    if (r1 > 65) s += 20;
    else if (r1 > 50) s += 15;
    else if (r1 > 35) s += 5;
    else risks.push("rsi_depressed");
    if (r1 > 60 && r15 > 60) s += 10;
    else if (r1 > 50 && r15 > 50) s += 5;
  }
  const avgVol = (t.vol_ratio_1h + t.vol_ratio_15m) / 2;
  if (avgVol > 1.5) s += 15;
  else if (avgVol > 1.0) s += 10;
  else if (avgVol > 0.7) s += 5;
  const wanted: Pattern[] = long
    ? ["hammer", "bullish_engulfing", "three_soldiers"]
    : ["bearish_engulfing", "three_crows"];
  s += Math.min(15, 8 * t.patterns.filter((p) => wanted.includes(p)).length);
  if (t.patterns.includes("doji")) s += 3;
  if (long && t.chg4h > 0) s += Math.min(10, Math.trunc(t.chg4h * 3));
  if (!long && t.chg4h < 0) s += Math.min(10, Math.trunc(Math.abs(t.chg4h) * 3));
  return Math.min(Math.max(s, 0), 100);
}

/**
 * Funding pillar, 0–40, on hourly funding annualised ×8760. Being paid to hold (favourable) scores
 * best, neutral funding next, and paying more the higher the rate (the predecessor scored favourable
 * funding below neutral).
 */
export function fundingScore(dir: Side, fundingRate: number, risks: string[]): number {
  const ann = fundingAnnualPct(fundingRate);
  if (ann < 5) return 35;
  const favourable = dir === "LONG" ? fundingRate < 0 : fundingRate > 0;
  if (favourable) return 40;
  if (ann < 15) return 20;
  if (ann > 30) {
    risks.push("heavy_unfavorable_funding");
    return 0;
  }
  risks.push("unfavorable_funding");
  return 10;
}

function scoreDirection(
  cfg: ScannerConfig,
  m: MarketCtx,
  dir: Side,
  t: Technicals,
  macro: BtcMacro,
): Opportunity {
  const risks: string[] = [];
  const ms = marketStructureScore(m, t, risks);
  const tech = technicalsScore(dir, t, risks);
  const fund = fundingScore(dir, m.funding_rate, risks);
  const w = cfg.pillar_weights;
  const raw = (ms * w.market_structure + tech * w.technicals + fund * w.funding) * 4;
  const mod = macro.modifiers[dir];
  return {
    asset: m.name,
    direction: dir,
    final_score: round(raw + mod, 1),
    raw_score: round(raw, 1),
    macro_modifier: mod,
    pillar_scores: { market_structure: round(ms, 1), technicals: round(tech, 1), funding: round(fund, 1) },
    technicals: {
      ...t,
      rsi1h: round(t.rsi1h, 1),
      rsi15m: round(t.rsi15m, 1),
      vol_ratio_1h: round(t.vol_ratio_1h, 2),
      vol_ratio_15m: round(t.vol_ratio_15m, 2),
    },
    market_data: {
      vol24h: m.volume_24h,
      oi_usd: round(m.open_interest_usd, 2),
      funding_rate: m.funding_rate,
      funding_ann_pct: round(fundingAnnualPct(m.funding_rate), 1),
      mark_price: m.mark_price,
    },
    momentum: { score_delta: 0, scan_streak: 0 },
    risks,
  };
}

/** Momentum annotation against past scans: same asset AND same direction. Does not change rank. */
export function annotateMomentum(o: Opportunity, history: readonly ScanResult[]): Opportunity {
  let streak = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    if (!history[i]!.opportunities.some((p) => p.asset === o.asset && p.direction === o.direction)) break;
    streak++;
  }
  const lastScan = history.at(-1);
  const prev = lastScan?.opportunities.find((p) => p.asset === o.asset && p.direction === o.direction);
  return {
    ...o,
    momentum: { score_delta: prev ? round(o.final_score - prev.final_score, 1) : 0, scan_streak: streak },
  };
}

interface ScanInput {
  markets: readonly MarketCtx[];
  btc4h: readonly Candle[];
  btc1h: readonly Candle[];
  /** closed candles per asset (the runner fetches these for the top-N list) */
  candles: ReadonlyMap<string, AssetCandles>;
  history: readonly ScanResult[];
  nowMs: number;
  durationMs?: number;
}

export function runScan(cfg: ScannerConfig, input: ScanInput): ScanResult {
  const macro = btcMacro(cfg, input.btc4h, input.btc1h);
  const passed = stage1(cfg, input.markets);
  const top = stage2(cfg, passed);
  const kept: Opportunity[] = [];
  const disqualified: Disqualified[] = [];
  let skipped = 0;
  for (const m of top) {
    const c = input.candles.get(m.name);
    if (!c || c["1h"].length === 0) {
      skipped++;
      continue;
    }
    const t = computeTechnicals(c);
    let best: Opportunity | null = null;
    for (const dir of ["LONG", "SHORT"] as const) {
      const dq = disqualify(cfg, m.name, dir, t, m, macro);
      if (dq) {
        disqualified.push(dq);
        continue;
      }
      const o = scoreDirection(cfg, m, dir, t, macro);
      if (!best || o.final_score > best.final_score) best = o;
    }
    if (best) kept.push(best);
  }
  const ranked = kept
    .map((o) => annotateMomentum(o, input.history))
    .sort((a, b) => b.final_score - a.final_score);
  const qualified = ranked.filter((o) => o.final_score >= cfg.score_threshold);
  return {
    scan_time_ms: input.nowMs,
    btc_macro: macro,
    opportunities: qualified,
    disqualified,
    stats: {
      assets_scanned: input.markets.length,
      passed_stage1: passed.length,
      deep_dived: top.length - skipped,
      skipped_no_candles: skipped,
      qualified: qualified.length,
      disqualified_count: disqualified.length,
      scan_duration_ms: input.durationMs ?? 0,
    },
  };
}
