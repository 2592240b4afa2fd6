import type { MinuteCandles, PastMinutes } from "../venue/candle-history.ts";
import { type MarketParams, takerFlow } from "./market-params.ts";
import { tickExponent } from "./price-grid.ts";
import { activity, initialPriceState, type PriceState, stepPrice } from "./price-process.ts";
import { createRng, deriveSeed, type Rng, type RngState, rngFrom } from "./prng.ts";

/**
 * The sim world's past: the same price process the live model runs, stepped five minutes at a time
 * over the days before start, so every market opens with candles, funding history, 24 h volume and
 * open interest. Pure and seeded. Only the process's state at the start of each day is kept: a day's
 * minutes are made again from there when asked for, so a month of every market costs little memory.
 */
interface BackfillMarket {
  coin: string;
  szDecimals: number;
  /** Price at the end of the history (the live market starts here). */
  endPx: number;
  params: MarketParams;
}

interface MarketHistory {
  coin: string;
  /** Start of the first minute; minute i covers [startMs + i·60 s, +60 s). */
  startMs: number;
  /** The minutes (o, h, l, c at the price scale on the tick grid, v in lots, n trades), a day at a time. */
  candles: PastMinutes;
  /** Average premium of each whole hour; hour i covers [hourStartMs + i·1 h, +1 h). */
  hourStartMs: number;
  premiums: Float64Array;
  /** Open interest of the rest of the market at the end, in lots. */
  openInterestLots: number;
  /** The latest trades (oldest first), px at the price scale and sz in lots (made on first use). */
  readonly trades: { px: number; sz: number; time: number; takerIsBuy: boolean }[];
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
const STEPS_PER_DAY = 1440 / MINUTES_PER_STEP;

/** Backfill `days` of history ending at `endMs` for every market (BTC's shocks are shared, as live). */
export function backfill(
  markets: readonly BackfillMarket[],
  opts: { seed: number; endMs: number; days: number },
): MarketHistory[] {
  const make = pastMaker(opts);
  return markets.map(make);
}

/**
 * One market's history at a time, all ending at `endMs` and sharing BTC's shocks: a world makes the
 * markets it runs at start and the others when first asked for, and both give the same past.
 */
export function pastMaker(opts: {
  seed: number;
  endMs: number;
  days: number;
}): (m: BackfillMarket) => MarketHistory {
  const minutes = Math.round(opts.days * 1440);
  const endMinute = Math.floor(opts.endMs / MINUTE) * MINUTE;
  const startMs = endMinute - minutes * MINUTE;
  let btcShocks: Float64Array | undefined;
  const shocks = (): Float64Array => {
    if (btcShocks) return btcShocks;
    const btcRng = createRng(deriveSeed(opts.seed, "history:btc-shock"));
    btcShocks = new Float64Array(minutes);
    for (let i = 0; i < minutes; i++) btcShocks[i] = btcRng.normal();
    return btcShocks;
  };
  return (m) => backfillOne(m, opts.seed, startMs, minutes, shocks());
}

/** The process path of one market, and what its minutes are drawn from. */
interface Path {
  m: BackfillMarket;
  seed: number;
  startMs: number;
  minutes: number;
  steps: number;
  btcShocks: Float64Array;
  /** Process state and stream at the start of each day: its steps are taken again from there. */
  dayStarts: { state: PriceState; rng: RngState }[];
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

  const steps = Math.ceil(minutes / MINUTES_PER_STEP);
  const dayStarts: Path["dayStarts"] = [];
  let s = initialPriceState(m.endPx, p.openInterestUsd / m.endPx);
  for (let j = 0; j < steps; j++) {
    if (j % STEPS_PER_DAY === 0) dayStarts.push({ state: s, rng: rng.save() });
    s = stepPrice(s, p, MINUTES_PER_STEP * MINUTE, btcShocks[j * MINUTES_PER_STEP]!, rng);
    const t = startMs + j * MINUTES_PER_STEP * MINUTE;
    const hour = Math.floor((t - firstHour) / HOUR);
    if (t >= firstHour && hour < hours) premiums[hour]! += (s.premium * MINUTES_PER_STEP) / 60;
  }

  // Shifted so the last close is exactly endPx.
  const shift = m.endPx / s.px;
  const lotScale = 10 ** m.szDecimals;
  const path: Path = { m, seed, startMs, minutes, steps, btcShocks, dayStarts, shift };
  const candles: PastMinutes = { startMs, minutes, day: (k) => dayOf(path, k) };
  let trades: MarketHistory["trades"] | undefined;
  return {
    coin: m.coin,
    startMs,
    candles,
    hourStartMs: firstHour,
    premiums,
    openInterestLots: Math.round((s.oi / shift) * lotScale),
    get trades() {
      trades ??= recentTrades(candles, createRng(deriveSeed(seed, `history:${m.coin}:trades`)));
      return trades;
    },
    end: { ...s, px: m.endPx, oi: s.oi / shift },
  };
}

/**
 * Days made lately, most recently used last, across every market of every world in this process: a
 * reader of one market's minutes asks for the same days again and again; all of them for every market
 * would be about 1 MB a month each. An evicted day is simply made again, minute for minute the same.
 */
const DAYS_KEPT = 96;
const daysMade = new Map<Path, Map<number, MinuteCandles>>();
const dayOrder: [Path, number][] = [];

function dayOf(path: Path, k: number): MinuteCandles {
  let ofPath = daysMade.get(path);
  const made = ofPath?.get(k);
  if (made) return made;
  const d = drawDay(path, k);
  if (!ofPath) {
    ofPath = new Map();
    daysMade.set(path, ofPath);
  }
  ofPath.set(k, d);
  dayOrder.push([path, k]);
  if (dayOrder.length > DAYS_KEPT) {
    const [oldPath, oldK] = dayOrder.shift()!;
    const old = daysMade.get(oldPath);
    old?.delete(oldK);
    if (old?.size === 0) daysMade.delete(oldPath);
  }
  return d;
}

/**
 * The minutes of day k: the day's process steps taken again from where the day began, then inside
 * each step a Brownian bridge (noise that sums to the step's move) written straight onto the price
 * grid. Each day draws from its own seeded stream, so a day made alone is the day made with the rest.
 */
function drawDay(path: Path, k: number): MinuteCandles {
  const { m, startMs, shift } = path;
  const p = m.params;
  const start = path.dayStarts[k];
  if (!start) throw new Error(`no day ${k} in ${m.coin}'s past`);
  const firstStep = k * STEPS_PER_DAY;
  const lastStep = Math.min(path.steps, firstStep + STEPS_PER_DAY);
  const stepPx = new Float64Array(lastStep - firstStep + 1);
  const stepBusy = new Float64Array(lastStep - firstStep);
  const processRng = rngFrom(start.rng);
  let s = start.state;
  stepPx[0] = s.px;
  for (let j = firstStep; j < lastStep; j++) {
    s = stepPrice(s, p, MINUTES_PER_STEP * MINUTE, path.btcShocks[j * MINUTES_PER_STEP]!, processRng);
    stepPx[j - firstStep + 1] = s.px;
    stepBusy[j - firstStep] = activity(s);
  }

  const flow = takerFlow(p);
  const calmSigma = p.volAnnual * Math.sqrt(MINUTE / YEAR_MS);
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
  const scale = shift * pxScale;
  const { o: O, h: H, l: L, c: C, v: V, n: N } = out;
  const usdPerMinute = p.dayVolumeUsd / 1440;
  const lotsPerUsd = (2 * lotScale) / shift;
  const rng = createRng(deriveSeed(path.seed, `history:${m.coin}:day${k}`));
  for (let j = firstStep; j < lastStep; j++) {
    const i0 = j * MINUTES_PER_STEP;
    const span = Math.min(MINUTES_PER_STEP, path.minutes - i0);
    const busy = stepBusy[j - firstStep]!;
    const sigma = calmSigma * busy;
    // A step never straddles an hour (5 divides 60), so one seasonal factor serves all its minutes.
    const base = usdPerMinute * seasonality(startMs + i0 * MINUTE) * busy;
    let sum = 0;
    for (let q = 0; q < span; q++) {
      z[q] = sigma * rng.normal();
      sum += z[q]!;
    }
    const open0 = stepPx[j - firstStep]!;
    const pull = (Math.log(stepPx[j - firstStep + 1]! / open0) - sum) / span;
    // One tick for the whole step (a valid price for all its candles), taken at its highest open.
    const tick =
      TICKS[
        tickExponent(Math.max(open0, stepPx[j - firstStep + 1]!) * shift * (1 + 10 * sigma), m.szDecimals) + 6
      ]! * pxScale;
    let px = open0;
    for (let q = 0; q < span; q++) {
      const i = i0 + q - i0All;
      const ret = z[q]! + pull;
      const close = px * Math.exp(ret);
      const oo = onGrid(px * scale, tick);
      const cc = onGrid(close * scale, tick);
      O[i] = oo;
      C[i] = cc;
      H[i] = Math.max(onGrid(Math.max(px, close) * (1 + sigma * rng.next()) * scale, tick), oo, cc);
      L[i] = Math.max(
        1,
        Math.min(onGrid(Math.min(px, close) * (1 - sigma * rng.next()) * scale, tick), oo, cc),
      );
      const usd = base * (0.4 + 0.75 * Math.min(Math.abs(ret) / calmSigma, 6));
      V[i] = Math.max(1, Math.round((usd * lotsPerUsd) / (px + close)));
      N[i] = Math.min(65_535, Math.max(1, Math.round(usd / flow.meanUsd)));
      px = close;
    }
  }
  return out;
}

/** Every minute of a past in one set of arrays (tools and tests; the venue reads a day at a time). */
export function allMinutes(past: PastMinutes): MinuteCandles {
  const out: MinuteCandles = {
    startMs: past.startMs,
    o: new Int32Array(past.minutes),
    h: new Int32Array(past.minutes),
    l: new Int32Array(past.minutes),
    c: new Int32Array(past.minutes),
    v: new Float64Array(past.minutes),
    n: new Uint16Array(past.minutes),
  };
  for (let k = 0, at = 0; at < past.minutes; k++) {
    const d = past.day(k);
    out.o.set(d.o, at);
    out.h.set(d.h, at);
    out.l.set(d.l, at);
    out.c.set(d.c, at);
    out.v.set(d.v, at);
    out.n.set(d.n, at);
    at += d.c.length;
  }
  return out;
}

/** The last trades of the history, drawn inside the last minutes' candles. */
function recentTrades(past: PastMinutes, rng: Rng): MarketHistory["trades"] {
  const trades: MarketHistory["trades"] = [];
  if (past.minutes === 0) return trades;
  const hist = past.day(Math.floor((past.minutes - 1) / 1440));
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
