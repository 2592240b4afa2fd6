import type { RecordedMarket } from "./recorded.ts";

/** What a sim world replays: recorded markets in memory, cut to [fromMs, toMs]. */
export interface SimReplay {
  fromMs: number;
  toMs?: number;
  markets: RecordedMarket[];
}

export interface Recording {
  fromMs: number;
  markets: RecordedMarket[];
}

/** The recording cut at `toMs` (nothing after it plays), each series sorted by time. */
export async function loadRecording(r: SimReplay): Promise<Recording> {
  if (!Number.isFinite(r.fromMs)) throw new Error(`replay start must be a time, got ${r.fromMs}`);
  const toMs = r.toMs ?? Number.POSITIVE_INFINITY;
  if (!(toMs > r.fromMs)) throw new Error("replay end must be after its start");
  if (r.markets.length === 0) throw new Error("nothing to replay: no recorded markets");
  return { fromMs: r.fromMs, markets: r.markets.map((m) => cut(m, toMs)) };
}

function cut(m: RecordedMarket, toMs: number): RecordedMarket {
  return {
    coin: m.coin,
    candles: m.candles.filter((c) => c.t + 60_000 <= toMs).sort((a, b) => a.t - b.t),
    books: m.books.filter((b) => b.time <= toMs).sort((a, b) => a.time - b.time),
    funding: m.funding.filter((f) => f.time <= toMs).sort((a, b) => a.time - b.time),
  };
}
