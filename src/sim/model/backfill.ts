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
  const firstHour = Math.ceil(startMs / HOUR) * HOUR;
  const hours = Math.max(0, Math.floor((startMs + minutes * MINUTE - firstHour) / HOUR));
  const premiums = new Float64Array(hours);

  // The process, a step at a time: each step's closing price and how busy it was.
  const steps = Math.ceil(minutes / MINUTES_PER_STEP);
  const stepPx = new Float64Array(steps + 1);
  const stepBusy = new Float64Array(steps);
  let s = initialPriceState(m.endPx, p.openInterestUsd / m.endPx);
  stepPx[0] = s.px;
  for (let j = 0; j < steps; j++) {
    s = stepPrice(s, p, MINUTES_PER_STEP * MINUTE, btcShocks[j * MINUTES_PER_STEP]!, rng);
    stepPx[j + 1] = s.px;
    stepBusy[j] = activity(s);
    const t = startMs + j * MINUTES_PER_STEP * MINUTE;
    const hour = Math.floor((t - firstHour) / HOUR);
    if (t >= firstHour && hour < hours) premiums[hour]! += (s.premium * MINUTES_PER_STEP) / 60;
  }

  // Shifted so the last close is exactly endPx, the minutes inside each step are drawn as a Brownian
  // bridge (noise that sums to the step's move) and written straight onto the price grid.
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
    openInterestLots: Math.round((s.oi / shift) * lotScale),
    trades: [],
    end: { ...s, px: m.endPx, oi: s.oi / shift },
  };
  const z = new Float64Array(MINUTES_PER_STEP);
  const k = shift * pxScale;
  const { o: O, h: H, l: L, c: C, v: V, n: N } = out;
  const usdPerMinute = p.dayVolumeUsd / 1440;
  const lotsPerUsd = (2 * lotScale) / shift;
  for (let j = 0; j < steps; j++) {
    const i0 = j * MINUTES_PER_STEP;
    const span = Math.min(MINUTES_PER_STEP, minutes - i0);
    const busy = stepBusy[j]!;
    const sigma = calmSigma * busy;
    // A step never straddles an hour (5 divides 60), so one seasonal factor serves all its minutes.
    const base = usdPerMinute * seasonality(startMs + i0 * MINUTE) * busy;
    let sum = 0;
    for (let q = 0; q < span; q++) {
      z[q] = sigma * rng.normal();
      sum += z[q]!;
    }
    const open0 = stepPx[j]!;
    const pull = (Math.log(stepPx[j + 1]! / open0) - sum) / span;
    // One tick for the whole step (a valid price for all its candles), taken at its highest open.
    const tick =
      TICKS[tickExponent(Math.max(open0, stepPx[j + 1]!) * shift * (1 + 10 * sigma), m.szDecimals) + 6]! *
      pxScale;
    let px = open0;
    for (let q = 0; q < span; q++) {
      const i = i0 + q;
      const ret = z[q]! + pull;
      const close = px * Math.exp(ret);
      const oo = onGrid(px * k, tick);
      const cc = onGrid(close * k, tick);
      O[i] = oo;
      C[i] = cc;
      H[i] = Math.max(onGrid(Math.max(px, close) * (1 + sigma * rng.next()) * k, tick), oo, cc);
      L[i] = Math.max(1, Math.min(onGrid(Math.min(px, close) * (1 - sigma * rng.next()) * k, tick), oo, cc));
      const usd = base * (0.4 + 0.75 * Math.min(Math.abs(ret) / calmSigma, 6));
      V[i] = Math.max(1, Math.round((usd * lotsPerUsd) / (px + close)));
      N[i] = Math.min(65_535, Math.max(1, Math.round(usd / flow.meanUsd)));
      px = close;
    }
  }
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
  return SEASON[Math.floor(t / HOUR) % 24]!;
}
const SEASON = Array.from({ length: 24 }, (_, hour) => 1 + 0.35 * Math.sin((2 * Math.PI * (hour - 9)) / 24));

/** 10^e for the tick exponents −6 … 0. */
const TICKS = [1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1];

/** A scaled price rounded to a multiple of the scaled tick. */
function onGrid(scaled: number, tick: number): number {
  const v = Math.round(Math.round(scaled / tick) * tick);
  return v > 1 ? v : 1;
}
