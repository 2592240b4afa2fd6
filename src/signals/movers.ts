import { type Candle, INTERVAL_MS } from "./candles.ts";
import type { MarketCtx } from "./market.ts";
import type { MoversConfig, MoverType } from "./movers-config.ts";

/**
 * Emerging movers: sudden capital inflow, detected by comparing this scan's market contexts with
 * recent scans (OI baseline, funding, OI-rank stability) and with candles. Pure.
 */

type Side = "LONG" | "SHORT";

interface MoverSnapshot {
  asset: string;
  open_interest: number;
  open_interest_usd: number;
  volume_24h: number;
  funding_rate: number;
  mark_price: number;
}

export interface MoverSignal {
  asset: string;
  signal_type: MoverType;
  direction: Side;
  confidence: number;
  oi_delta_pct: number;
  volume_surge_ratio: number;
  funding_shift: number;
  price_change_pct: number;
  details: {
    oi_signal: boolean;
    vol_signal: boolean;
    funding_signal: boolean;
    breakout_signal: boolean;
    oi_baseline: number | null;
    mark_price: number;
    volume_24h: number;
  };
  is_erratic: boolean;
}

export interface MoversScan {
  scan_time_ms: number;
  signals: MoverSignal[];
  /** qualifying assets only (the predecessor kept all ~200 × 30 scans) */
  snapshots: MoverSnapshot[];
  stats: {
    total_assets: number;
    qualifying: number;
    signals_detected: number;
    undirected: number;
    has_baseline: boolean;
    history_depth: number;
    scan_duration_ms: number;
  };
}

export interface MoverCandles {
  "4h"?: Candle[];
  "1h"?: Candle[];
}

const round = (x: number, dp: number) => {
  const f = 10 ** dp;
  return Math.round(x * f) / f;
};

function snapshotOf(m: MarketCtx): MoverSnapshot {
  return {
    asset: m.name,
    open_interest: m.open_interest,
    open_interest_usd: m.open_interest_usd,
    volume_24h: m.volume_24h,
    funding_rate: m.funding_rate,
    mark_price: m.mark_price,
  };
}

/** Past scans that still count as a baseline: inside the time window, oldest first. */
function recentScans(cfg: MoversConfig, history: readonly MoversScan[], nowMs: number): MoversScan[] {
  return history.filter((h) => h.scan_time_ms < nowMs && nowMs - h.scan_time_ms <= cfg.oi_baseline_window_ms);
}

/** Whether the history holds enough recent scans for any detector to run (else no candle is used). */
export function hasBaseline(cfg: MoversConfig, history: readonly MoversScan[], nowMs: number): boolean {
  return recentScans(cfg, history, nowMs).length >= cfg.min_scans_for_signal;
}

/** OI change (coins, so a price move alone is not "inflow") against the windowed mean. */
export function oiDelta(
  cfg: MoversConfig,
  asset: string,
  currentOi: number,
  recent: readonly MoversScan[],
): { fired: boolean; delta_pct: number; baseline: number | null; baseline_mark: number | null } {
  let sum = 0;
  let marks = 0;
  let n = 0;
  for (const h of recent) {
    const s = h.snapshots.find((x) => x.asset === asset);
    if (!s) continue;
    sum += s.open_interest;
    marks += s.mark_price;
    n++;
  }
  if (n === 0) return { fired: false, delta_pct: 0, baseline: null, baseline_mark: null };
  const baseline = sum / n;
  if (!(baseline > 0)) return { fired: false, delta_pct: 0, baseline, baseline_mark: marks / n };
  const delta = ((currentOi - baseline) / baseline) * 100;
  return { fired: delta >= cfg.oi_delta_breakout_pct, delta_pct: delta, baseline, baseline_mark: marks / n };
}

/**
 * Recent 4h-equivalent volume in USD (v × close) over the 24 h average 4 h volume. The forming
 * candle is blended with the last closed one and scaled by elapsed time, so a young candle neither
 * looks empty nor gets wildly extrapolated.
 */
export function volumeSurge(
  cfg: MoversConfig,
  candles4h: readonly Candle[] | undefined,
  volume24h: number,
  nowMs: number,
): { fired: boolean; ratio: number } {
  if (!candles4h || candles4h.length === 0 || !(volume24h > 0)) return { fired: false, ratio: 0 };
  const span = INTERVAL_MS["4h"];
  const last = candles4h.at(-1)!;
  let recentUsd: number;
  if (last.T >= nowMs) {
    const elapsed = Math.max(0, Math.min(span, nowMs - last.t));
    const prev = candles4h.at(-2);
    const prevUsd = prev ? prev.v * prev.c : 0;
    const window = (prev ? span : 0) + elapsed;
    recentUsd = window > 0 ? ((prevUsd + last.v * last.c) / window) * span : 0;
  } else {
    recentUsd = last.v * last.c;
  }
  const ratio = recentUsd / (volume24h / 6);
  return { fired: ratio >= cfg.volume_surge_ratio, ratio };
}

export function fundingShift(
  cfg: MoversConfig,
  current: number,
  prev: number | undefined,
): { fired: boolean; shift: number; type: "flip" | "acceleration" | null } {
  if (prev === undefined || prev === 0) return { fired: false, shift: 0, type: null };
  const shift = current - prev;
  if (
    current !== 0 &&
    Math.sign(current) !== Math.sign(prev) &&
    Math.abs(shift) >= cfg.funding_flip_threshold
  ) {
    return { fired: true, shift, type: "flip" };
  }
  const changePct = Math.abs(shift / prev) * 100;
  if (
    changePct >= cfg.funding_acceleration_pct &&
    Math.abs(current) > Math.abs(prev) &&
    Math.abs(shift) >= cfg.funding_min_shift
  ) {
    return { fired: true, shift, type: "acceleration" };
  }
  return { fired: false, shift: 0, type: null };
}

/** Mark beyond the range of the previous bars (the newest, forming bar excluded) by ≥ exceed %. */
export function priceBreakout(
  cfg: MoversConfig,
  candles1h: readonly Candle[] | undefined,
  mark: number,
): { fired: boolean; pct: number; direction: "up" | "down" | null } {
  const n = cfg.breakout_lookback_bars;
  if (!candles1h || candles1h.length < n) return { fired: false, pct: 0, direction: null };
  const window = candles1h.slice(-n, -1);
  let hi = -Infinity;
  let lo = Infinity;
  for (const k of window) {
    if (k.h > hi) hi = k.h;
    if (k.l < lo) lo = k.l;
  }
  if (!(hi > 0)) return { fired: false, pct: 0, direction: null };
  if (mark > hi) {
    const pct = ((mark - hi) / hi) * 100;
    if (pct >= cfg.breakout_exceed_pct) return { fired: true, pct, direction: "up" };
  } else if (mark < lo && lo > 0) {
    const pct = ((lo - mark) / lo) * 100;
    if (pct >= cfg.breakout_exceed_pct) return { fired: true, pct: -pct, direction: "down" };
  }
  return { fired: false, pct: 0, direction: null };
}

/** An asset whose OI rank (by USD) keeps zig-zagging over the last scans is erratic. */
export function isErratic(cfg: MoversConfig, asset: string, history: readonly MoversScan[]): boolean {
  if (history.length < cfg.erratic_window) return false;
  const ranks: number[] = [];
  for (const h of history.slice(-cfg.erratic_window)) {
    const sorted = [...h.snapshots].sort((a, b) => b.open_interest_usd - a.open_interest_usd);
    const r = sorted.findIndex((s) => s.asset === asset);
    if (r >= 0) ranks.push(r);
  }
  if (ranks.length < 3) return false;
  let reversals = 0;
  for (let i = 2; i < ranks.length; i++) {
    const d1 = ranks[i - 1]! - ranks[i - 2]!;
    const d2 = ranks[i]! - ranks[i - 1]!;
    if (d1 !== 0 && d2 !== 0 && Math.sign(d1) !== Math.sign(d2)) reversals++;
  }
  return reversals >= cfg.erratic_max_reversals;
}

export function classify(
  cfg: MoversConfig,
  f: { oi: boolean; oiPct: number; vol: boolean; volRatio: number; funding: boolean; breakout: boolean },
): MoverType | null {
  if (f.oi && f.vol && f.oiPct >= cfg.oi_delta_immediate_pct && f.volRatio >= cfg.volume_surge_immediate) {
    return "IMMEDIATE_MOVER";
  }
  if (f.oi && f.vol) return "OI_VOLUME_SURGE";
  if (f.vol) return "VOLUME_SURGE";
  if (f.oi) return "OI_BREAKOUT";
  if (f.breakout) return "PRICE_BREAKOUT";
  if (f.funding) return "FUNDING_FLIP";
  return null;
}

/**
 * Direction by vote: funding sign, funding shift, breakout (twice with a volume surge), and — when
 * OI or volume drove the signal — the price move since the baseline. A tie means no direction.
 */
export function voteDirection(v: {
  funding: number;
  fundingShift: number | null;
  breakout: "up" | "down" | null;
  volumeWithBreakout: boolean;
  priceMove: number | null;
}): Side | null {
  let long = 0;
  let short = 0;
  if (v.funding > 0) long++;
  else if (v.funding < 0) short++;
  if (v.fundingShift !== null) {
    if (v.fundingShift > 0) long++;
    else short++;
  }
  if (v.breakout) {
    const w = v.volumeWithBreakout ? 2 : 1;
    if (v.breakout === "up") long += w;
    else short += w;
  }
  if (v.priceMove !== null && v.priceMove !== 0) {
    if (v.priceMove > 0) long++;
    else short++;
  }
  if (long === short) return null;
  return long > short ? "LONG" : "SHORT";
}

interface MoversInput {
  markets: readonly MarketCtx[];
  candles: ReadonlyMap<string, MoverCandles>;
  history: readonly MoversScan[];
  nowMs: number;
  durationMs?: number;
}

export function runMovers(cfg: MoversConfig, input: MoversInput): MoversScan {
  const qualifying = input.markets.filter((m) => !m.delisted && m.volume_24h >= cfg.volume_min_24h);
  const recent = recentScans(cfg, input.history, input.nowMs);
  const baseline = hasBaseline(cfg, input.history, input.nowMs);
  const signals: MoverSignal[] = [];
  let undirected = 0;
  if (baseline) {
    const last = recent.at(-1);
    for (const m of qualifying) {
      const c = input.candles.get(m.name);
      const oi = oiDelta(cfg, m.name, m.open_interest, recent);
      const vol = volumeSurge(cfg, c?.["4h"], m.volume_24h, input.nowMs);
      const prevFunding = last?.snapshots.find((s) => s.asset === m.name)?.funding_rate;
      const fund = fundingShift(cfg, m.funding_rate, prevFunding);
      const brk = priceBreakout(cfg, c?.["1h"], m.mark_price);
      const type = classify(cfg, {
        oi: oi.fired,
        oiPct: oi.delta_pct,
        vol: vol.fired,
        volRatio: vol.ratio,
        funding: fund.fired,
        breakout: brk.fired,
      });
      if (!type) continue;
      const priceMove = (oi.fired || vol.fired) && oi.baseline_mark ? m.mark_price - oi.baseline_mark : null;
      const direction = voteDirection({
        funding: m.funding_rate,
        fundingShift: fund.fired ? fund.shift : null,
        breakout: brk.direction,
        volumeWithBreakout: vol.fired && brk.fired,
        priceMove,
      });
      if (!direction) {
        undirected++;
        continue;
      }
      const erratic = isErratic(cfg, m.name, input.history);
      const weight = cfg.signal_weights[type] ?? 50;
      signals.push({
        asset: m.name,
        signal_type: type,
        direction,
        confidence: round(erratic ? weight * 0.5 : weight, 1),
        oi_delta_pct: oi.fired ? round(oi.delta_pct, 2) : 0,
        volume_surge_ratio: vol.fired ? round(vol.ratio, 2) : 0,
        funding_shift: fund.fired ? round(fund.shift, 8) : 0,
        price_change_pct: brk.fired ? round(brk.pct, 2) : 0,
        details: {
          oi_signal: oi.fired,
          vol_signal: vol.fired,
          funding_signal: fund.fired,
          breakout_signal: brk.fired,
          oi_baseline: oi.baseline === null ? null : round(oi.baseline, 2),
          mark_price: m.mark_price,
          volume_24h: m.volume_24h,
        },
        is_erratic: erratic,
      });
    }
  }
  signals.sort((a, b) => b.confidence - a.confidence);
  return {
    scan_time_ms: input.nowMs,
    signals,
    snapshots: qualifying.map(snapshotOf),
    stats: {
      total_assets: input.markets.length,
      qualifying: qualifying.length,
      signals_detected: signals.length,
      undirected,
      has_baseline: baseline,
      history_depth: input.history.length,
      scan_duration_ms: input.durationMs ?? 0,
    },
  };
}

/** Which qualifying assets get candles this scan: the largest by volume, up to the cap. */
export function candleTargets(cfg: MoversConfig, markets: readonly MarketCtx[]): string[] {
  return markets
    .filter((m) => !m.delisted && m.volume_24h >= cfg.volume_min_24h)
    .sort((a, b) => b.volume_24h - a.volume_24h)
    .slice(0, cfg.max_candle_assets)
    .map((m) => m.name);
}
