import { readBooks, readCandles, readFunding } from "../../market/index.ts";
import { MINUTE_MS, type RecordedMarket } from "./recorded.ts";

/**
 * What a sim world replays: recorded markets handed over in memory, or read from the market-data
 * store (`DATA_DIR/market/<network>/…`, as `hl data fetch/record` and `hl sim export` write it).
 * Playback runs from `fromMs` to `toMs`; the `historyMs` before `fromMs` become the world's past.
 */
export type SimReplay = { fromMs: number; toMs?: number } & (
  | { markets: RecordedMarket[] }
  | { root: string; network: string; coins: string[]; historyMs?: number }
);

interface Recording {
  fromMs: number;
  markets: RecordedMarket[];
}

/** Past read before the replay start unless asked otherwise: enough for any strategy's look-back. */
const DEFAULT_REPLAY_HISTORY_MS = 86_400_000;

/** The recording, cut at `toMs` (nothing after it plays), each series sorted by time. */
export async function loadRecording(r: SimReplay): Promise<Recording> {
  if (!Number.isFinite(r.fromMs)) throw new Error(`replay start must be a time, got ${r.fromMs}`);
  const toMs = r.toMs ?? Number.POSITIVE_INFINITY;
  if (!(toMs > r.fromMs)) throw new Error("replay end must be after its start");
  const markets = "markets" in r ? r.markets : await readStore(r, toMs);
  if (markets.length === 0) throw new Error("nothing to replay: no recorded markets");
  return { fromMs: r.fromMs, markets: markets.map((m) => cut(m, toMs)) };
}

async function readStore(
  r: { fromMs: number; root: string; network: string; coins: string[]; historyMs?: number },
  toMs: number,
): Promise<RecordedMarket[]> {
  if (!Number.isFinite(toMs)) throw new Error("replaying the market-data store needs an end time");
  const fromMs = r.fromMs - (r.historyMs ?? DEFAULT_REPLAY_HISTORY_MS);
  return Promise.all(
    r.coins.map(async (coin) => {
      const q = { root: r.root, network: r.network, coin, fromMs, toMs };
      const [candles, books, funding] = await Promise.all([
        readCandles({ ...q, interval: "1m" }),
        readBooks(q),
        readFunding(q),
      ]);
      if (candles.length === 0 && books.length === 0)
        throw new Error(
          `no recorded candles or books of ${coin} on ${r.network} between the replay's start and end`,
        );
      return {
        coin,
        candles: candles.map((k) => ({
          t: k.t,
          o: Number(k.o),
          h: Number(k.h),
          l: Number(k.l),
          c: Number(k.c),
          v: Number(k.v),
          n: k.n,
        })),
        books: books.map((b) => ({
          time: b.t,
          bids: b.bids.map(([px, sz]) => ({ px, sz })),
          asks: b.asks.map(([px, sz]) => ({ px, sz })),
        })),
        funding: funding.map((f) => ({ time: f.t, fundingRate: Number(f.rate), premium: Number(f.premium) })),
      };
    }),
  );
}

function cut(m: RecordedMarket, toMs: number): RecordedMarket {
  return {
    coin: m.coin,
    candles: m.candles.filter((c) => c.t + MINUTE_MS <= toMs).sort((a, b) => a.t - b.t),
    books: m.books.filter((b) => b.time <= toMs).sort((a, b) => a.time - b.time),
    funding: m.funding.filter((f) => f.time <= toMs).sort((a, b) => a.time - b.time),
  };
}
