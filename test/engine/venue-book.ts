import type { MarketSnapshot } from "../../src/strategies/sdk.ts";
import type { TestVenue } from "../sim/venue/helpers.ts";
import { snap } from "../strategies/helpers.ts";

/** The sim's BTC book as the paper book reads it, with `mid` as its mark (paper has no other). */
export function btcSnapshot(t: TestVenue, mid: number): MarketSnapshot {
  const book = t.venue.info({ type: "l2Book", coin: "BTC" }) as { levels: { px: string; sz: string }[][] };
  const side = (i: 0 | 1) => book.levels[i]!.map((l) => ({ px: Number(l.px), sz: Number(l.sz) }));
  return snap({
    instrument: "BTC-PERP",
    mid,
    bid: side(0)[0]?.px ?? 0,
    ask: side(1)[0]?.px ?? 0,
    timestampMs: t.clock.now,
    book: { bids: side(0), asks: side(1) },
  });
}
