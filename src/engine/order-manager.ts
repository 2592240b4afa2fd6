import { createHash } from "node:crypto";
import { dec } from "../core/decimal.ts";
import { RoundingError, roundPrice, roundSize } from "../exchange/rounding.ts";
import type { OrderIntent } from "../strategies/sdk.ts";
import type { Cloid, GatewayOrder, PlaceRequest } from "./ports.ts";

/**
 * Client order ids: "0x" + 8 hex of the engine tag (strategy + instrument) + 12 hex of the run's
 * start time + 12 hex of a per-run counter. A restart gets a new start time, so ids never repeat, and
 * the tag tells our resting orders apart from anyone else's on the same account.
 */
export function engineTag(strategyId: string, instrument: string): string {
  return createHash("sha256").update(`hl-agent:${strategyId}:${instrument}`).digest("hex").slice(0, 8);
}

export class CloidFactory {
  private counter = 0;
  constructor(
    readonly tag: string,
    private readonly runStartMs: number,
  ) {}

  next(): Cloid {
    this.counter += 1;
    const run = (this.runStartMs % 2 ** 48).toString(16).padStart(12, "0");
    const n = this.counter.toString(16).padStart(12, "0");
    return `0x${this.tag}${run}${n}`;
  }

  owns(cloid: string | undefined): boolean {
    return cloid?.toLowerCase().startsWith(`0x${this.tag}`) === true;
  }
}

/** An intent on the exchange's grid: resting buys round down and sells up (never more aggressive than asked), IOC the other way. */
export function roundIntent(o: OrderIntent, szDecimals: number): { price: string; size: string } | null {
  const passive = o.tif !== "Ioc";
  const mode = (o.side === "buy") === passive ? "down" : "up";
  try {
    return { price: roundPrice(o.price, szDecimals, mode), size: roundSize(o.size, szDecimals) };
  } catch (e) {
    if (e instanceof RoundingError) return null;
    throw e;
  }
}

export interface OrderPlan {
  cancel: GatewayOrder[];
  place: PlaceRequest[];
  /** Resting intents already on the book within tolerance. */
  kept: number;
  /** Intents too small for the lot size (or priced below the smallest tick). */
  dropped: number;
}

/**
 * Diffs the strategy's desired resting quotes against our open orders: an open order is kept when a
 * desired quote on the same side is within `requoteBps` of its price and asks for between half and all
 * of its remaining size; every other open order of ours is cancelled and missing quotes are placed.
 * IOC intents are always placed.
 */
export function planOrders(
  intents: readonly OrderIntent[],
  open: readonly GatewayOrder[],
  opts: { instrument: string; szDecimals: number; requoteBps: number; cloids: CloidFactory },
): OrderPlan {
  const unmatched = [...open];
  const place: PlaceRequest[] = [];
  let kept = 0;
  let dropped = 0;
  for (const o of intents) {
    const r = roundIntent(o, opts.szDecimals);
    if (!r) {
      dropped += 1;
      continue;
    }
    if (o.tif !== "Ioc") {
      const want = dec(r.price);
      const size = dec(r.size);
      const idx = unmatched.findIndex(
        (u) =>
          u.side === o.side &&
          (u.reduceOnly === true) === (o.reduceOnly === true) &&
          dec(u.price).minus(want).abs().div(want).times(10_000).lte(opts.requoteBps) &&
          dec(u.size).lte(size) &&
          dec(u.size).gte(size.div(2)),
      );
      if (idx >= 0) {
        unmatched.splice(idx, 1);
        kept += 1;
        continue;
      }
    }
    place.push({
      instrument: opts.instrument,
      cloid: opts.cloids.next(),
      side: o.side,
      price: r.price,
      size: r.size,
      tif: o.tif,
      reduceOnly: o.reduceOnly === true,
      tag: o.tag,
    });
  }
  return { cancel: unmatched, place, kept, dropped };
}
