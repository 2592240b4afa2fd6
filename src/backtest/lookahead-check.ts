import type { PlaceRequest } from "../engine/ports.ts";
import { isCandleColumns, type ReplayHistory } from "./market-history.ts";
import { type BacktestOptions, runBacktest } from "./run-backtest.ts";

/** Signals re-run by default: spread evenly over the run (each re-run replays from the start to the signal). */
const DEFAULT_LOOKAHEAD_SIGNALS = 20;

/** One order as the check compares it. */
type SentOrder = Pick<PlaceRequest, "side" | "price" | "size" | "tif" | "reduceOnly">;

interface LookaheadDifference {
  at: string;
  /** The orders sent at that time in the full run, and in the run on data cut there. */
  full: SentOrder[];
  cut: SentOrder[];
}

export interface LookaheadResult {
  /** Order batches the full run sent, and how many of them were re-run. */
  signals: number;
  checked: number;
  biased: LookaheadDifference[];
}

/**
 * What a run may know at `atMs`: candles that closed by then, funding settled by then, trades and books
 * recorded before then.
 */
export function historyCutAt(h: ReplayHistory, atMs: number, intervalMs: number): ReplayHistory {
  const closed = (t: number) => t + intervalMs <= atMs;
  const c = h.candles;
  const candles = isCandleColumns(c)
    ? (() => {
        let n = 0;
        while (n < c.t.length && closed(c.t[n]!)) n += 1;
        return {
          t: c.t.subarray(0, n),
          o: c.o.subarray(0, n),
          h: c.h.subarray(0, n),
          l: c.l.subarray(0, n),
          c: c.c.subarray(0, n),
          v: c.v.subarray(0, n),
        };
      })()
    : c.filter((row) => closed(row.t));
  return {
    interval: h.interval,
    candles,
    funding: h.funding.filter((f) => f.t < atMs),
    ...(h.trades ? { trades: h.trades.filter((x) => x.t < atMs) } : {}),
    ...(h.books ? { books: h.books.filter((x) => x.t < atMs) } : {}),
  };
}

/**
 * `hl backtest --lookahead-check`: the run once on the whole history, recording every order batch
 * and its time; then, for up to `signals` of those batches, the same run on the history cut at the
 * batch's time. A strategy (or a replay) that reads the future sends something else there once the
 * future is gone: each such batch is reported. Like Freqtrade's lookahead-analysis, per signal.
 */
export async function lookaheadCheck(
  o: BacktestOptions,
  intervalMs: number,
  signals = DEFAULT_LOOKAHEAD_SIGNALS,
  cut: (h: ReplayHistory, atMs: number) => ReplayHistory = (h, at) => historyCutAt(h, at, intervalMs),
): Promise<LookaheadResult> {
  const { log: _quiet, onProgress: _once, ...rerun } = o;
  const full = new Map<number, SentOrder[]>();
  await runBacktest({ ...o, onPlace: record(full) });
  const times = [...full.keys()];
  const step = Math.max(1, times.length / Math.max(1, signals));
  const picked: number[] = [];
  for (let k = 0; k < times.length && picked.length < signals; k += step) picked.push(times[Math.floor(k)]!);
  const biased: LookaheadDifference[] = [];
  for (const at of picked) {
    const seen = new Map<number, SentOrder[]>();
    await runBacktest({ ...rerun, history: cut(o.history, at), toMs: at, onPlace: record(seen) });
    const want = full.get(at)!;
    const got = seen.get(at) ?? [];
    if (JSON.stringify(want) !== JSON.stringify(got))
      biased.push({ at: new Date(at).toISOString(), full: want, cut: got });
  }
  return { signals: times.length, checked: picked.length, biased };
}

function record(into: Map<number, SentOrder[]>) {
  return (orders: readonly PlaceRequest[], atMs: number) => {
    const batch = into.get(atMs) ?? [];
    for (const x of orders)
      batch.push({ side: x.side, price: x.price, size: x.size, tif: x.tif, reduceOnly: x.reduceOnly });
    into.set(atMs, batch);
  };
}

/** The check as text lines. */
export function formatLookahead(r: LookaheadResult): string[] {
  const head = `Lookahead check: ${r.checked} of ${r.signals} signals re-run on data cut at their time: ${r.biased.length === 0 ? "all identical (no look-ahead found)" : `${r.biased.length} differ`}`;
  return [
    head,
    ...r.biased.map(
      (d) => `  ${d.at}: full run sent ${JSON.stringify(d.full)}, on data cut there ${JSON.stringify(d.cut)}`,
    ),
  ];
}
