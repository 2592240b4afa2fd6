import type { LazyMinutes, MinuteCandles } from "../venue/candle-history.ts";
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

export interface MarketHistory extends MinuteCandles {
  coin: string;
  /**
   * Start of the first minute; minute i covers [startMs + i·60 s, +60 s). The per-minute arrays
   * (o, h, l, c at the price scale on the tick grid, v in lots, n trades) are made on first use.
   */
  startMs: number;
  /** The last days' minutes, made at once, and every minute on demand (what the venue loads). */
  candles: LazyMinutes;
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
/** Minutes are drawn a day at a time, each day from its own stream, so any day can be made alone. */
const STEPS_PER_CHUNK = 1440 / MINUTES_PER_STEP;
/** Days of minutes made at start (the 24 h volume, the latest trades, the buckets in progress). */
const RECENT_CHUNKS = 2;

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

/** The process path of one market, a step at a time, and what the minutes are drawn from. */
interface Path {
  m: BackfillMarket;
  seed: number;
  startMs: number;
  minutes: number;
  stepPx: Float64Array;
  stepBusy: Float64Array;
  /** Scale that makes the last close endPx. */
  shift: number;
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

  // Shifted so the last close is exactly endPx.
  const shift = m.endPx / s.px;
  const lotScale = 10 ** m.szDecimals;
  const path: Path = { m, seed, startMs, minutes, stepPx, stepBusy, shift };
  const chunks = Math.ceil(steps / STEPS_PER_CHUNK);
  const recent = drawMinutes(path, Math.max(0, chunks - RECENT_CHUNKS), chunks);
  const full = (): MinuteCandles => remembered(path, () => drawMinutes(path, 0, chunks));
  const out: MarketHistory = {
    coin: m.coin,
    startMs,
    get o() {
      return full().o;
    },
    get h() {
      return full().h;
    },
    get l() {
      return full().l;
    },
    get c() {
      return full().c;
    },
    get v() {
      return full().v;
    },
    get n() {
      return full().n;
    },
    candles: { recent, full },
    hourStartMs: firstHour,
    premiums,
    openInterestLots: Math.round((s.oi / shift) * lotScale),
    trades: recentTrades(recent, createRng(deriveSeed(seed, `history:${m.coin}:trades`))),
    end: { ...s, px: m.endPx, oi: s.oi / shift },
  };
  return out;
}

/**
 * Whole pasts kept made, most recently used last: a scanner that reads every market's candles would
 * otherwise hold a month of minutes for all of them (about 1 MB each). An evicted past is simply made
 * again, minute for minute the same, when next asked for.
 */
const FULL_PASTS_KEPT = 40;
const fullPasts = new Map<Path, MinuteCandles>();

function remembered(path: Path, make: () => MinuteCandles): MinuteCandles {
  let m = fullPasts.get(path);
  if (m) fullPasts.delete(path);
  else m = make();
  fullPasts.set(path, m);
  if (fullPasts.size > FULL_PASTS_KEPT) fullPasts.delete(fullPasts.keys().next().value!);
  return m;
}

/**
 * The minutes of day-chunks [from, to): inside each step a Brownian bridge (noise that sums to the
 * step's move) written straight onto the price grid. Each chunk draws from its own seeded stream, so
 * the recent days made at start and the whole past made later agree minute for minute.
 */
function drawMinutes(path: Path, fromChunk: number, toChunk: number): MinuteCandles {
  const { m, stepPx, stepBusy, shift, startMs } = path;
  const p = m.params;
  const flow = takerFlow(p);
  const calmSigma = p.volAnnual * Math.sqrt(MINUTE / YEAR_MS);
  const steps = stepBusy.length;
  const firstStep = fromChunk * STEPS_PER_CHUNK;
  const lastStep = Math.min(steps, toChunk * STEPS_PER_CHUNK);
  const i0All = firstStep * MINUTES_PER_STEP;
  const count = Math.max(0, Math.min(path.minutes, lastStep * MINUTES_PER_STEP) - i0All);
  const pxScale = 10 ** (6 - m.szDecimals);
  const lotScale = 10 ** m.szDecimals;
  const out: MinuteCandles = {
    startMs: startMs + i0All * MINUTE,
    o: new Int32Array(count),
    h: new Int32Array(count),
    l: new Int32Array(count),
    c: new Int32Array(count),
    v: new Float64Array(count),
    n: new Uint16Array(count),
  };
  const z = new Float64Array(MINUTES_PER_STEP);
  const k = shift * pxScale;
  const { o: O, h: H, l: L, c: C, v: V, n: N } = out;
  const usdPerMinute = p.dayVolumeUsd / 1440;
  const lotsPerUsd = (2 * lotScale) / shift;
  let rng = createRng(0);
  for (let j = firstStep; j < lastStep; j++) {
    if ((j - firstStep) % STEPS_PER_CHUNK === 0 || j === firstStep)
      rng = createRng(deriveSeed(path.seed, `history:${m.coin}:day${Math.floor(j / STEPS_PER_CHUNK)}`));
    const i0 = j * MINUTES_PER_STEP;
    const span = Math.min(MINUTES_PER_STEP, path.minutes - i0);
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
      const i = i0 + q - i0All;
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
  return out;
}

/** The last trades of the history, drawn inside the last minutes' candles. */
function recentTrades(hist: MinuteCandles, rng: Rng): MarketHistory["trades"] {
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
