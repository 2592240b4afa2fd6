import { pastMaker } from "./model/backfill.ts";
import { HOUSE_MAKER, HOUSE_TAKER } from "./model/house-driver.ts";
import { marketParams } from "./model/market-params.ts";
import type { PriceState } from "./model/price-process.ts";
import type { SimVenue } from "./venue/index.ts";

export interface PastMarket {
  coin: string;
  szDecimals: number;
  /** Price the history ends at (the live market starts here). */
  startPx: number;
}

/**
 * Backfill `days` of history ending at `endMs` into the venue (candles, funding, volume, trades) and
 * return the model state at the end of each market in `running` (the live model continues from it).
 * Those are made now; every other market's past is made when it is first looked at or traded. The
 * sim world and `hl sim export` share it, so an exported history is the past a world with the same
 * seed and start time serves.
 */
export function loadSimPast(
  venue: SimVenue,
  markets: readonly PastMarket[],
  opts: { seed: number; endMs: number; days: number; running: ReadonlySet<string> },
): Map<string, PriceState> {
  const initial = new Map<string, PriceState>();
  const make = pastMaker(opts);
  const parties = { buyer: HOUSE_TAKER, seller: HOUSE_MAKER };
  for (const m of markets) {
    const market = {
      coin: m.coin,
      szDecimals: m.szDecimals,
      endPx: m.startPx,
      params: marketParams(m.coin, opts.seed),
    };
    if (!opts.running.has(m.coin)) {
      venue.deferPast(m.coin, () => make(market), parties);
      continue;
    }
    const h = make(market);
    venue.loadPast(m.coin, h, parties);
    initial.set(m.coin, h.end);
  }
  return initial;
}
