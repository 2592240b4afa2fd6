import { inBackground } from "../../exchange/background.ts";
import type { HlInfo } from "../../exchange/index.ts";
import { assetContextMaxAgeMs } from "../../exchange/shared-reads.ts";

/** What a feed needs from the market: the exchange's clock and the reference coin's funding. */
export interface FundingSource {
  /** Exchange time now, ms (the sim world's clock may run faster than the wall clock). */
  now(): Promise<number>;
  /** Realized hourly funding settlements of `coin` at or after `startMs`, oldest first. */
  history(coin: string, startMs: number): Promise<{ time: number; rate: string }[]>;
  /** The live hourly funding estimate of `coin` for the current hour. */
  predicted(coin: string, dex: string): Promise<string>;
}

/** Share one answer per key among callers within `ttlMs` (and one request in flight). */
function shared<T>(ttlMs: number, load: (key: string) => Promise<T>): (key: string) => Promise<T> {
  const cache = new Map<string, { at: number; value: Promise<T> }>();
  return (key) => {
    const hit = cache.get(key);
    if (hit && Date.now() - hit.at < ttlMs) return hit.value;
    const value = load(key);
    cache.set(key, { at: Date.now(), value });
    value.catch(() => cache.delete(key));
    return value;
  };
}

/**
 * FundingSource over the exchange client. The live estimate is the asset context's `funding`
 * (hourly, for any dex; `predictedFundings` only covers the main dex). The clock is the exchange's
 * own: the `time` of the BTC order book, so feed ticks and fills share one time axis. Feeds in one
 * process share these reads (the clock once a second, asset contexts once per `contextMaxAgeMs` with
 * every other reader of this process), keeping the weight budget small.
 */
export function exchangeFundingSource(
  info: HlInfo,
  shareMs = 1_000,
  contextMaxAgeMs = assetContextMaxAgeMs(),
): FundingSource {
  const clock = shared(shareMs, async () => {
    const book = await info.l2Book("BTC");
    if (!book) throw new Error("the exchange returned no BTC book to read its clock from");
    return book.time;
  });
  const contexts = (dex: string) => info.assetContexts(dex, contextMaxAgeMs);
  return {
    now: () => clock(""),
    async history(coin, startMs) {
      // Settled hours are history no reader waits on: behind the process's other reads.
      const records = await inBackground(() => info.fundingHistory({ coin, startTime: startMs }));
      return records.map((r) => ({ time: r.time, rate: r.fundingRate }));
    },
    async predicted(coin, dex) {
      const [meta, ctxs] = await contexts(dex);
      const i = meta.universe.findIndex((u) => u.name === coin);
      const ctx = i >= 0 ? ctxs[i] : undefined;
      if (!ctx) throw new Error(`no asset context for ${coin}${dex ? ` on dex ${dex}` : ""}`);
      return ctx.funding;
    },
  };
}
