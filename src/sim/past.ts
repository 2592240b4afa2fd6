import { backfill } from "./model/backfill.ts";
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
 * return each market's model state at the end. The sim world and `hl sim export` share it, so an
 * exported history is the past a world with the same seed and start time serves.
 */
export function loadSimPast(
  venue: SimVenue,
  markets: readonly PastMarket[],
  opts: { seed: number; endMs: number; days: number },
): Map<string, PriceState> {
  const initial = new Map<string, PriceState>();
  const past = backfill(
    markets.map((m) => ({
      coin: m.coin,
      szDecimals: m.szDecimals,
      endPx: m.startPx,
      params: marketParams(m.coin, opts.seed),
    })),
    opts,
  );
  for (const h of past) {
    venue.loadPast(h.coin, h, { buyer: HOUSE_TAKER, seller: HOUSE_MAKER });
    initial.set(h.coin, h.end);
  }
  return initial;
}
