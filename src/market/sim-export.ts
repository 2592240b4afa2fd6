import { UserError } from "../core/errors.ts";
import type { PastMarket } from "../sim/past.ts";
import { loadSimPast } from "../sim/past.ts";
import { createVenue, DEFAULT_MARKETS, type SimVenue } from "../sim/venue/index.ts";
import { writeCandles } from "./candles.ts";
import { writeFunding } from "./funding.ts";
import { DAY_MS } from "./layout.ts";
import { CANDLE_INTERVALS, type CandleInterval, type CandleRow, type FundingRow } from "./types.ts";

/** The network a sim world's history is stored under. */
const SIM_NETWORK = "paper";

export const INTERVAL_MS: Record<CandleInterval, number> = { "1m": 60_000, "5m": 300_000, "1h": 3_600_000 };

interface SimExportOptions {
  /** DATA_DIR: the history goes under `<root>/market/<network>/`. */
  root: string;
  /** Days of history before `endMs`. */
  days: number;
  /** Sim market names (default: every market of the sim world). */
  coins?: readonly string[];
  /** Same seed and end ⇒ the same files (default 1). */
  seed?: number;
  /** End of the history, ms (default: the start of the current UTC day, so a day's runs agree). */
  endMs?: number;
  network?: string;
}

interface SimExportResult {
  network: string;
  fromMs: number;
  endMs: number;
  coins: { coin: string; candles: Record<CandleInterval, number>; funding: number }[];
}

/** Candles the venue answers per request (Hyperliquid's cap, which the sim keeps). */
const CANDLES_PER_REQUEST = 5_000;
/** Funding records per fundingHistory answer. */
const FUNDING_PER_REQUEST = 500;

/**
 * Writes the past a sim world with this seed would open with (closed 1m/5m/1h candles and settled
 * funding of each market) into the market store, read from an in-process venue through the same
 * /info answers a running world serves.
 */
export async function exportSimHistory(opts: SimExportOptions): Promise<SimExportResult> {
  if (!(Number.isInteger(opts.days) && opts.days > 0))
    throw new UserError(`days must be a positive integer, got ${opts.days}`);
  const seed = opts.seed ?? 1;
  const endMs = opts.endMs ?? Math.floor(Date.now() / DAY_MS) * DAY_MS;
  const network = opts.network ?? SIM_NETWORK;
  const known = new Map(DEFAULT_MARKETS.map((m) => [m.name, m]));
  const names = opts.coins ?? DEFAULT_MARKETS.map((m) => m.name);
  const markets: PastMarket[] = names.map((coin) => {
    const spec = known.get(coin);
    if (!spec) throw new UserError(`unknown sim market "${coin}" (known: ${[...known.keys()].join(", ")})`);
    return { coin, szDecimals: spec.szDecimals, startPx: Number(spec.startPx) };
  });
  const venue = createVenue({ seed, clock: () => endMs, markets: DEFAULT_MARKETS });
  // Every market's past is made when its candles are first read, so one month is held at a time.
  loadSimPast(venue, markets, { seed, endMs, days: opts.days, running: new Set() });
  const fromMs = endMs - opts.days * DAY_MS;

  const result: SimExportResult = { network, fromMs, endMs, coins: [] };
  for (const { coin } of markets) {
    const target = { root: opts.root, network, coin };
    const counts = {} as Record<CandleInterval, number>;
    for (const interval of CANDLE_INTERVALS) {
      const rows = venueCandles(venue, coin, interval, fromMs, endMs);
      await writeCandles({ ...target, interval }, rows);
      counts[interval] = rows.length;
    }
    const funding = venueFunding(venue, coin, fromMs, endMs);
    await writeFunding(target, funding);
    result.coins.push({ coin, candles: counts, funding: funding.length });
  }
  return result;
}

/** Closed candles opening in [fromMs, endMs), asked for in windows of at most 5,000 candles. */
function venueCandles(
  venue: SimVenue,
  coin: string,
  interval: CandleInterval,
  fromMs: number,
  endMs: number,
): CandleRow[] {
  const step = INTERVAL_MS[interval];
  const out: CandleRow[] = [];
  for (let start = fromMs; start < endMs; start += step * CANDLES_PER_REQUEST) {
    const end = Math.min(endMs, start + step * CANDLES_PER_REQUEST);
    const answer = venue.info({
      type: "candleSnapshot",
      req: { coin, interval, startTime: start, endTime: end - 1 },
    });
    for (const k of answer as VenueCandle[])
      if (k.t >= start && k.t + step <= end)
        out.push({ t: k.t, T: k.T, o: k.o, h: k.h, l: k.l, c: k.c, v: k.v, n: k.n });
  }
  return out;
}

/** Funding settled in [fromMs, endMs), following pages of 500. */
function venueFunding(venue: SimVenue, coin: string, fromMs: number, endMs: number): FundingRow[] {
  const out: FundingRow[] = [];
  let start = fromMs;
  for (;;) {
    const page = venue.info({
      type: "fundingHistory",
      coin,
      startTime: start,
      endTime: endMs - 1,
    }) as VenueFunding[];
    for (const f of page)
      if (out.length === 0 || f.time > out[out.length - 1]!.t)
        out.push({ t: f.time, rate: f.fundingRate, premium: f.premium });
    if (page.length < FUNDING_PER_REQUEST) return out;
    start = page[page.length - 1]!.time + 1;
  }
}

interface VenueCandle {
  t: number;
  T: number;
  o: string;
  h: string;
  l: string;
  c: string;
  v: string;
  n: number;
}

interface VenueFunding {
  time: number;
  fundingRate: string;
  premium: string;
}
