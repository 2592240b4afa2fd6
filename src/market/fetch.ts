import { readCandles, writeCandles } from "./candles.ts";
import { readFunding, writeFunding } from "./funding.ts";
import { INTERVAL_MS } from "./sim-export.ts";
import type { CandleInterval, CandleRow, FundingRow } from "./types.ts";

/** What `hl data fetch` asks the exchange: one page of candles or of funding per call. */
export interface MarketHistorySource {
  candleSnapshot(req: {
    coin: string;
    interval: CandleInterval;
    startTime: number;
    endTime: number;
  }): Promise<readonly ExchangeCandle[]>;
  fundingHistory(req: {
    coin: string;
    startTime: number;
    endTime: number;
  }): Promise<readonly ExchangeFunding[]>;
}

interface ExchangeCandle {
  t: number;
  T: number;
  o: string;
  h: string;
  l: string;
  c: string;
  v: string;
  n: number;
}

interface ExchangeFunding {
  time: number;
  fundingRate: string;
  premium: string;
}

interface FetchOptions {
  root: string;
  network: string;
  coins: readonly string[];
  interval: CandleInterval;
  fromMs: number;
  toMs: number;
  /** Exchange time now: only candles that have closed by then are stored (default Date.now). */
  now?: () => number;
  /** Told after each page is stored. */
  onPage?: (p: {
    coin: string;
    dataset: "candles" | "funding";
    fromMs: number;
    toMs: number;
    rows: number;
  }) => void;
}

interface FetchResult {
  coins: {
    coin: string;
    candles: { requests: number; stored: number };
    funding: { requests: number; stored: number };
  }[];
}

/** Candles per candleSnapshot answer (Hyperliquid serves at most 5,000). */
const CANDLES_PER_REQUEST = 5_000;
/** Records per fundingHistory answer (Hyperliquid serves at most 500). */
const FUNDING_PER_REQUEST = 500;
const HOUR = 3_600_000;

/**
 * Fills the store with a coin's closed candles and settled funding over [fromMs, toMs), asking only
 * for what is missing: candles whose open time is not held, funding hours without a record. Each
 * page is written as soon as it arrives, so an interrupted fetch resumes where it stopped. The
 * source's transport keeps the requests within the exchange's weight budget.
 */
export async function fetchMarketHistory(
  source: MarketHistorySource,
  opts: FetchOptions,
): Promise<FetchResult> {
  if (!(opts.toMs > opts.fromMs)) throw new Error("the range is empty: --to must be after --from");
  const now = opts.now ?? Date.now;
  const result: FetchResult = { coins: [] };
  for (const coin of opts.coins) {
    const q = { root: opts.root, network: opts.network, coin, fromMs: opts.fromMs, toMs: opts.toMs };
    const step = INTERVAL_MS[opts.interval];
    // A candle is complete once its bucket has closed; the one in progress is left for a later fetch.
    const candleEnd = Math.min(opts.toMs, Math.floor(now() / step) * step);
    const held = await readCandles({ ...q, interval: opts.interval });
    const candles = { requests: 0, stored: 0 };
    for (const w of missingWindows(
      bucketsFrom(opts.fromMs, step),
      candleEnd,
      step,
      held,
      CANDLES_PER_REQUEST,
    )) {
      const answer = await source.candleSnapshot({
        coin,
        interval: opts.interval,
        startTime: w.from,
        endTime: w.to - 1,
      });
      candles.requests++;
      const rows: CandleRow[] = [];
      for (const k of answer)
        if (k.t >= w.from && k.t < w.to && k.t + step <= candleEnd)
          rows.push({ t: k.t, T: k.T, o: k.o, h: k.h, l: k.l, c: k.c, v: k.v, n: k.n });
      await writeCandles({ ...q, interval: opts.interval }, rows);
      candles.stored += rows.length;
      opts.onPage?.({ coin, dataset: "candles", fromMs: w.from, toMs: w.to, rows: rows.length });
    }

    // Settlements are stamped a little after the hour; a record covers the hour it falls in.
    const fundingEnd = Math.min(opts.toMs, now());
    const fundingHeld = (await readFunding(q)).map((f) => ({ t: Math.floor(f.t / HOUR) * HOUR }));
    const funding = { requests: 0, stored: 0 };
    for (const w of missingWindows(
      bucketsFrom(opts.fromMs, HOUR),
      fundingEnd,
      HOUR,
      fundingHeld,
      FUNDING_PER_REQUEST,
    )) {
      let start = Math.max(w.from, opts.fromMs);
      const end = Math.min(w.to, fundingEnd) - 1;
      for (;;) {
        const page = await source.fundingHistory({ coin, startTime: start, endTime: end });
        funding.requests++;
        const rows: FundingRow[] = page
          .filter((f) => f.time >= start && f.time <= end)
          .map((f) => ({ t: f.time, rate: f.fundingRate, premium: f.premium }));
        await writeFunding(q, rows);
        funding.stored += rows.length;
        opts.onPage?.({ coin, dataset: "funding", fromMs: start, toMs: end + 1, rows: rows.length });
        const last = page[page.length - 1];
        if (page.length < FUNDING_PER_REQUEST || last === undefined || last.time >= end) break;
        start = last.time + 1;
      }
    }
    result.coins.push({ coin, candles, funding });
  }
  return result;
}

function bucketsFrom(fromMs: number, step: number): number {
  return Math.ceil(fromMs / step) * step;
}

/**
 * Windows of at most `perRequest` buckets that together cover every bucket in [first, end) not in
 * `held`. A window starts at a missing bucket; buckets held inside it are asked for again (one
 * request either way) rather than split into more requests.
 */
export function missingWindows(
  first: number,
  end: number,
  step: number,
  held: readonly { t: number }[],
  perRequest: number,
): { from: number; to: number }[] {
  const have = new Set<number>();
  for (const r of held) have.add(r.t);
  const out: { from: number; to: number }[] = [];
  for (let t = first; t < end; ) {
    if (have.has(t)) {
      t += step;
      continue;
    }
    const to = Math.min(end, t + perRequest * step);
    out.push({ from: t, to });
    t = to;
  }
  return out;
}
