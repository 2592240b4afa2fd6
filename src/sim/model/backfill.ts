import { type MarketParams, takerFlow } from "./market-params.ts";
import { tickExponent } from "./price-grid.ts";
import { activity, initialPriceState, type PriceState, stepPrice } from "./price-process.ts";
import { createRng, deriveSeed, type Rng } from "./prng.ts";

/**
 * The sim world's past: the same price process the live model runs, stepped a minute at a time over
 * the days before start, so every market opens with candles, funding history, 24 h volume and open
 * interest. Pure and seeded; typed arrays keep 30 days of minutes for dozens of markets cheap.
 */
export interface BackfillMarket {
  coin: string;
  szDecimals: number;
  /** Price at the end of the history (the live market starts here). */
  endPx: number;
  params: MarketParams;
}

export interface MarketHistory {
  coin: string;
  /** Start of the first minute; minute i covers [startMs + i·60 s, +60 s). */
  startMs: number;
  /** Per-minute OHLC at the price scale (integers, 10^(6 − szDecimals) per unit), on the tick grid. */
  o: Int32Array;
  h: Int32Array;
  l: Int32Array;
  c: Int32Array;
  /** Base volume in lots (10^−szDecimals) and trade count per minute. */
  v: Float64Array;
  n: Uint16Array;
  /** Average premium of each whole hour; hour i covers [hourStartMs + i·1 h, +1 h). */
  hourStartMs: number;
  premiums: Float64Array;
  /** Open interest of the rest of the market at the end, in lots. */
  openInterestLots: number;
  /** The latest trades (oldest first), px at the price scale and sz in lots. */
  trades: { px: number; sz: number; time: number; takerIsBuy: boolean }[];
  /** Model state at the end: the live model continues from it. */
  end: PriceState;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;
const YEAR_MS = 365 * 24 * HOUR;
/** Trades kept for recentTrades. */
const RECENT_TRADES = 100;
/** The process steps five minutes at a time; the minutes inside a step are bridged. */
const MINUTES_PER_STEP = 5;

/** Backfill `days` of history ending at `endMs` for every market (BTC's shocks are shared, as live). */
export function backfill(
  markets: readonly BackfillMarket[],
  opts: { seed: number; endMs: number; days: number },
): MarketHistory[] {
  const minutes = Math.round(opts.days * 1440);
  const endMinute = Math.floor(opts.endMs / MINUTE) * MINUTE;
  const startMs = endMinute - minutes * MINUTE;
  const btcRng = createRng(deriveSeed(opts.seed, "history:btc-shock"));
  const btcShocks = new Float64Array(minutes);
  for (let i = 0; i < minutes; i++) btcShocks[i] = btcRng.normal();
  return markets.map((m) => backfillOne(m, opts.seed, startMs, minutes, btcShocks));
}

function backfillOne(
  m: BackfillMarket,
  seed: number,
  startMs: number,
  minutes: number,
  btcShocks: Float64Array,
): MarketHistory {
  const rng = createRng(deriveSeed(seed, `history:${m.coin}`));
  const p = m.params;
  const flow = takerFlow(p);
  const calmSigma = p.volAnnual * Math.sqrt(MINUTE / YEAR_MS);
  // Unscaled path first (floats), then shifted so its last close is exactly endPx.
  const o = new Float64Array(minutes);
  const h = new Float64Array(minutes);
  const l = new Float64Array(minutes);
  const c = new Float64Array(minutes);
  const usd = new Float64Array(minutes);
  const firstHour = Math.ceil(startMs / HOUR) * HOUR;
  const hours = Math.max(0, Math.floor((startMs + minutes * MINUTE - firstHour) / HOUR));
  const premiums = new Float64Array(hours);
  let s = initialPriceState(m.endPx, p.openInterestUsd / m.endPx);
  const z = new Float64Array(MINUTES_PER_STEP);
  for (let i0 = 0; i0 < minutes; i0 += MINUTES_PER_STEP) {
    const open = s.px;
    s = stepPrice(s, p, MINUTES_PER_STEP * MINUTE, btcShocks[i0]!, rng);
    // The step's move spread over its minutes as a Brownian bridge: noise that sums to the move.
    const sigma = calmSigma * activity(s);
    const span = Math.min(MINUTES_PER_STEP, minutes - i0);
    let sum = 0;
    for (let k = 0; k < span; k++) {
      z[k] = sigma * rng.normal();
      sum += z[k]!;
    }
    const pull = (Math.log(s.px / open) - sum) / span;
    let px = open;
    for (let k = 0; k < span; k++) {
      const i = i0 + k;
      const t = startMs + i * MINUTE;
      const ret = z[k]! + pull;
      const close = px * Math.exp(ret);
      o[i] = px;
      c[i] = close;
      h[i] = Math.max(px, close) * (1 + sigma * rng.next());
      l[i] = Math.min(px, close) * (1 - sigma * rng.next());
      const size = Math.abs(ret) / calmSigma;
      usd[i] = (p.dayVolumeUsd / 1440) * seasonality(t) * activity(s) * (0.4 + 0.75 * Math.min(size, 6));
      const hour = Math.floor((t - firstHour) / HOUR);
      if (t >= firstHour && hour < hours) premiums[hour]! += s.premium / 60;
      px = close;
    }
  }

  const shift = m.endPx / s.px;
  const pxScale = 10 ** (6 - m.szDecimals);
  const lotScale = 10 ** m.szDecimals;

  const out: MarketHistory = {
    coin: m.coin,
    startMs,
    o: new Int32Array(minutes),
    h: new Int32Array(minutes),
    l: new Int32Array(minutes),
    c: new Int32Array(minutes),
    v: new Float64Array(minutes),
    n: new Uint16Array(minutes),
    hourStartMs: firstHour,
    premiums,
    openInterestLots: Math.round(s.oi * lotScale),
    trades: [],
    end: { ...s, px: m.endPx, oi: s.oi / shift },
  };
  for (let i = 0; i < minutes; i++) {
    // One tick for the whole candle (the high's), so every price of it is on the grid.
    const tick = TICKS[tickExponent(h[i]! * shift, m.szDecimals) + 6]! * pxScale;
    const k = shift * pxScale;
    const oo = onGrid(o[i]! * k, tick);
    const cc = onGrid(c[i]! * k, tick);
    out.o[i] = oo;
    out.c[i] = cc;
    out.h[i] = Math.max(onGrid(h[i]! * k, tick), oo, cc);
    out.l[i] = Math.max(1, Math.min(onGrid(l[i]! * k, tick), oo, cc));
    const typical = (o[i]! + c[i]!) * 0.5 * shift;
    out.v[i] = Math.max(1, Math.round((usd[i]! / typical) * lotScale));
    out.n[i] = Math.min(65_535, Math.max(1, Math.round(usd[i]! / flow.meanUsd)));
  }
  out.openInterestLots = Math.round(out.end.oi * lotScale);
  out.trades = recentTrades(out, rng);
  return out;
}

/** The last trades of the history, drawn inside the last minutes' candles. */
function recentTrades(hist: MarketHistory, rng: Rng): MarketHistory["trades"] {
  const trades: MarketHistory["trades"] = [];
  for (let i = hist.c.length - 1; i >= 0 && trades.length < RECENT_TRADES; i--) {
    const count = Math.min(hist.n[i]!, RECENT_TRADES - trades.length);
    const sz = Math.max(1, Math.round(hist.v[i]! / hist.n[i]!));
    const pxs = [hist.o[i]!, hist.h[i]!, hist.l[i]!, hist.c[i]!];
    const minuteStart = hist.startMs + i * MINUTE;
    const times: number[] = [];
    for (let k = 0; k < count; k++) times.push(minuteStart + Math.floor(rng.next() * MINUTE));
    times.sort((a, b) => b - a);
    for (const time of times) {
      trades.push({ px: pxs[Math.floor(rng.next() * 4)]!, sz, time, takerIsBuy: rng.chance(0.5) });
    }
  }
  return trades.reverse();
}

/** Busier during the overlap of the European and US sessions, quieter in the Asian night (mean 1). */
function seasonality(t: number): number {
  return SEASON[Math.floor((t % 86_400_000) / HOUR)]!;
}
const SEASON = Array.from({ length: 24 }, (_, hour) => 1 + 0.35 * Math.sin((2 * Math.PI * (hour - 9)) / 24));

/** 10^e for the tick exponents −6 … 0. */
const TICKS = [1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1];

/** A scaled price rounded to a multiple of the scaled tick. */
function onGrid(scaled: number, tick: number): number {
  return Math.max(1, Math.round(Math.round(scaled / tick) * tick));
}
