import { mapLimit } from "../core/concurrency.ts";
import { D, type DecLike, dec } from "../core/decimal.ts";
import type { OrderResult, Side } from "./actions.ts";
import type { HlClient } from "./client.ts";
import { canonicalInstrument, coinToInstrument } from "./symbols.ts";

/**
 * The operator's emergency tools — list and cancel resting orders, close positions with reduce-only
 * IOC orders — for when a trading job died, misbehaved or must simply stop holding risk now.
 */

interface RestingOrder {
  instrument: string;
  coin: string;
  oid: number;
  side: Side;
  size: string;
  price: string;
  timestamp: number;
}

interface CancelOutcome {
  instrument: string;
  oid: number;
  /** Absent when cancelled; the exchange's message when it refused (e.g. the order had just filled). */
  error?: string;
}

interface CloseOutcome {
  instrument: string;
  /** Position size before the close (signed). */
  size: string;
  result: OrderResult | { status: "error"; message: string };
}

const sameInstrument = (a: string, b: string) => canonicalInstrument(a) === canonicalInstrument(b);

/** Every resting order on every dex, optionally of one instrument, oldest first. */
export async function restingOrders(client: HlClient, instrument?: string): Promise<RestingOrder[]> {
  const open = await client.openOrdersAllDexes();
  return open
    .map((o) => ({
      instrument: coinToInstrument(o.coin),
      coin: o.coin,
      oid: o.oid,
      side: (o.side === "B" ? "buy" : "sell") as Side,
      size: o.sz,
      price: o.limitPx,
      timestamp: o.timestamp,
    }))
    .filter((o) => instrument === undefined || sameInstrument(o.instrument, instrument))
    .sort((a, b) => a.timestamp - b.timestamp || a.oid - b.oid);
}

/**
 * Cancel resting orders (all, one instrument's, or one oid) in one exchange call; each refusal is
 * reported, not thrown.
 */
export async function cancelOrders(
  client: HlClient,
  filter: { instrument?: string; oid?: number } = {},
): Promise<CancelOutcome[]> {
  const targets = (await restingOrders(client, filter.instrument)).filter(
    (o) => filter.oid === undefined || o.oid === filter.oid,
  );
  let refusals: (string | undefined)[];
  try {
    refusals = await client.cancelMany(targets.map((o) => ({ instrument: o.instrument, oid: o.oid })));
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    refusals = targets.map(() => error);
  }
  return targets.map((o, i) => {
    const error = refusals[i];
    return error === undefined
      ? { instrument: o.instrument, oid: o.oid }
      : { instrument: o.instrument, oid: o.oid, error };
  });
}

/**
 * Close open positions (all, or one instrument's) with reduce-only IOC orders at most `slippage`
 * from the mid — reduce-only, so a position that changed meanwhile can never be reversed.
 */
export async function closePositions(
  client: HlClient,
  opts: { instrument?: string; slippage?: DecLike } = {},
): Promise<CloseOutcome[]> {
  const { positions } = await client.accountSummary();
  const open = positions.filter(
    (p) =>
      !new D(p.szi).isZero() &&
      (opts.instrument === undefined || sameInstrument(p.instrument, opts.instrument)),
  );
  return mapLimit(open, 4, async (p) => {
    const size = dec(p.szi);
    try {
      const result = await client.marketOrder({
        instrument: p.instrument,
        side: size.gt(0) ? "sell" : "buy",
        size: size.abs().toFixed(),
        slippage: opts.slippage ?? "0.01",
        reduceOnly: true,
      });
      return { instrument: p.instrument, size: p.szi, result };
    } catch (err) {
      return {
        instrument: p.instrument,
        size: p.szi,
        result: { status: "error" as const, message: err instanceof Error ? err.message : String(err) },
      };
    }
  });
}
