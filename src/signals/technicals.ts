import { EMA, WSMA } from "trading-signals";
import type { Candle } from "./candles.ts";

/** Hyperliquid funding is paid hourly: annualise ×24×365. */
const FUNDING_PERIODS_PER_YEAR = 8760;

export function fundingAnnualPct(hourlyRate: number): number {
  return Math.abs(hourlyRate) * FUNDING_PERIODS_PER_YEAR * 100;
}

/** EMA seeded with the first close (trading-signals' EMA), one value per input. */
export function ema(closes: readonly number[], period: number): number[] {
  if (closes.length === 0 || period <= 0) return [];
  const e = new EMA(period);
  return closes.map((c) => e.add(c) as number);
}

/**
 * Wilder RSI from trading-signals' Wilder smoothing. A series with neither gains nor losses is 50
 * (the predecessor said 100, which made every flat market an "extreme" LONG disqualification).
 */
export function rsi(closes: readonly number[], period = 14): number {
  if (closes.length < period + 1) return 50;
  const gains = new WSMA(period);
  const losses = new WSMA(period);
  for (let i = 1; i < closes.length; i++) {
    const d = closes[i]! - closes[i - 1]!;
    gains.add(Math.max(d, 0));
    losses.add(Math.max(-d, 0));
  }
  const g = gains.getResult() ?? 0;
  const l = losses.getResult() ?? 0;
  if (l === 0) return g === 0 ? 50 : 100;
  return 100 - 100 / (1 + g / l);
}

export type HourlyTrend = "UP" | "DOWN" | "NEUTRAL";
export type Trend4h = "strong_up" | "up" | "neutral" | "down" | "strong_down";

/** Swing structure: higher highs and higher lows → UP, lower both → DOWN. */
export function hourlyTrend(candles: readonly Candle[]): HourlyTrend {
  if (candles.length < 10) return "NEUTRAL";
  const highs: number[] = [];
  const lows: number[] = [];
  for (let i = 1; i < candles.length - 1; i++) {
    const [a, b, c] = [candles[i - 1]!, candles[i]!, candles[i + 1]!];
    if (b.h >= a.h && b.h >= c.h) highs.push(b.h);
    if (b.l <= a.l && b.l <= c.l) lows.push(b.l);
  }
  if (highs.length < 2 || lows.length < 2) return "NEUTRAL";
  const [h1, h2] = highs.slice(-2) as [number, number];
  const [l1, l2] = lows.slice(-2) as [number, number];
  if (h2 > h1 && l2 > l1) return "UP";
  if (h2 < h1 && l2 < l1) return "DOWN";
  return "NEUTRAL";
}

export function trendLabel(diffPct: number): Trend4h {
  if (diffPct > 1.0) return "strong_up";
  if (diffPct > 0.2) return "up";
  if (diffPct < -1.0) return "strong_down";
  if (diffPct < -0.2) return "down";
  return "neutral";
}

/** EMA5 vs EMA13 on 4h closes: label from the gap, strength from the gap and how long it has held. */
export function trend4h(candles: readonly Candle[]): { trend: Trend4h; strength: number; diff_pct: number } {
  if (candles.length < 14) return { trend: "neutral", strength: 0, diff_pct: 0 };
  const closes = candles.map((k) => k.c);
  const e5 = ema(closes, 5);
  const e13 = ema(closes, 13);
  const n = closes.length;
  const last13 = e13[n - 1]!;
  const diff = last13 === 0 ? 0 : ((e5[n - 1]! - last13) / last13) * 100;
  let aligned = 0;
  if (diff !== 0) {
    for (let i = n - 1; i >= Math.max(0, n - 9); i--) {
      const side = e5[i]! - e13[i]!;
      if (Math.sign(side) !== Math.sign(diff)) break;
      aligned++;
    }
  }
  const strength = Math.min(Math.trunc(Math.abs(diff) * 20 + aligned * 5), 100);
  return { trend: trendLabel(diff), strength, diff_pct: diff };
}

/** Volume of the last `recent` bars over the `recent` bars before them (1.0 when undecidable). */
export function volumeRatio(candles: readonly Candle[], recent = 4): number {
  if (candles.length < recent * 2) return 1;
  const n = candles.length;
  let now = 0;
  let before = 0;
  for (let i = n - recent; i < n; i++) now += candles[i]!.v;
  for (let i = n - 2 * recent; i < n - recent; i++) before += candles[i]!.v;
  return before === 0 ? 1 : now / before;
}

export type Pattern =
  | "hammer"
  | "doji"
  | "bullish_engulfing"
  | "bearish_engulfing"
  | "three_soldiers"
  | "three_crows";

export function candlePatterns(candles: readonly Candle[]): Pattern[] {
  if (candles.length < 3) return [];
  const n = candles.length;
  const last = candles[n - 1]!;
  const prev = candles[n - 2]!;
  const range = last.h - last.l;
  if (range === 0) return [];
  const out: Pattern[] = [];
  const body = Math.abs(last.c - last.o);
  const upper = last.h - Math.max(last.o, last.c);
  const lower = Math.min(last.o, last.c) - last.l;
  const hammer = lower > 0.6 * range && upper < 0.1 * range && body / range < 0.35;
  if (hammer) out.push("hammer");
  else if (body / range < 0.1) out.push("doji");
  const bull = (k: Candle) => k.c > k.o;
  const bear = (k: Candle) => k.c < k.o;
  if (bear(prev) && bull(last) && last.c > prev.o && last.o < prev.c) out.push("bullish_engulfing");
  if (bull(prev) && bear(last) && last.c < prev.o && last.o > prev.c) out.push("bearish_engulfing");
  const [a, b, c] = candles.slice(-3) as [Candle, Candle, Candle];
  if (bull(a) && bull(b) && bull(c) && b.c > a.c && c.c > b.c) out.push("three_soldiers");
  if (bear(a) && bear(b) && bear(c) && b.c < a.c && c.c < b.c) out.push("three_crows");
  return out;
}

/** % change of the last close against the close 1, 4 and 24 bars back. */
export function priceChanges(candles: readonly Candle[]): { chg1h: number; chg4h: number; chg24h: number } {
  const n = candles.length;
  const chg = (back: number) => {
    if (n <= back) return 0;
    const then = candles[n - 1 - back]!.c;
    return then === 0 ? 0 : ((candles[n - 1]!.c - then) / then) * 100;
  };
  return { chg1h: chg(1), chg4h: chg(4), chg24h: chg(24) };
}
