import type { FrontendOpenOrdersResponse } from "@nktkas/hyperliquid";
import { dec, wire } from "../core/decimal.ts";
import type { HlClient } from "../exchange/client.ts";
import { coinToInstrument } from "../exchange/index.ts";
import { dexOfCoin } from "../exchange/symbols.ts";
import type { BackstopPort, ListingOptions, RestingStop, StopAnswer, StopSpec } from "./backstops.ts";

/** A cancel's refusal that says the stop already triggered, filled or was cancelled: nothing rests under that cloid. */
export function stopAlreadyGone(refusal: string): boolean {
  return /never placed|already canceled|filled/i.test(refusal);
}

/** A dex's resting orders as an open-orders stream of the same process has them (undefined: not trusted now). */
type StreamedDexOrders = (dex: string) => Promise<FrontendOpenOrdersResponse | undefined>;

/**
 * Backstops on Hyperliquid (paper, testnet or mainnet alike) through the shared client. With
 * `streamed` (`hl run`: its gateway's open-orders stream), the first listing takes the dexes that
 * stream follows from it instead of a `frontendOpenOrders` read (20 each); once this port has placed,
 * modified or cancelled a stop, it reads REST, so a list pushed before its own action is never used.
 */
export class HlBackstopPort implements BackstopPort {
  private acted = false;

  constructor(
    private readonly client: HlClient,
    private readonly streamed?: StreamedDexOrders,
  ) {}

  async szDecimals(coin: string): Promise<number> {
    return (await this.client.market(coinToInstrument(coin))).szDecimals;
  }

  private request(spec: StopSpec) {
    return {
      instrument: coinToInstrument(spec.coin),
      side: spec.side === "long" ? ("sell" as const) : ("buy" as const),
      size: spec.size,
      triggerPx: spec.triggerPx,
      cloid: spec.cloid,
    };
  }

  async placeStop(spec: StopSpec): Promise<StopAnswer> {
    this.acted = true;
    const r = await this.client.placeStop(this.request(spec));
    return r.status === "resting" ? r : { status: "refused", message: r.message };
  }

  async modifyStop(spec: StopSpec): Promise<StopAnswer> {
    this.acted = true;
    const r = await this.client.modifyStop(this.request(spec));
    return r.status === "resting" ? r : { status: "refused", message: r.message };
  }

  async cancelStop(coin: string, cloid: `0x${string}`): Promise<void> {
    this.acted = true;
    const [refusal] = await this.client.cancelMany([{ instrument: coinToInstrument(coin), cloid }]);
    if (refusal !== undefined && !stopAlreadyGone(refusal)) throw new Error(refusal);
  }

  /**
   * Read on the main dex, the dexes of `coins` and those with a position (see BackstopPort); with
   * `only`, on the dexes of `coins` alone.
   */
  async restingStops(coins: readonly string[] = [], opts: ListingOptions = {}): Promise<RestingStop[]> {
    const dexes = new Set(coins.map(dexOfCoin));
    if (!opts.only) {
      const { positions } = await this.client.accountSummary();
      for (const dex of ["", ...positions.map((p) => p.dex)]) dexes.add(dex);
    }
    const orders = await this.openOrdersOf([...dexes]);
    return orders
      .filter((o) => o.isTrigger)
      .map((o) => ({
        coin: o.coin,
        cloid: o.cloid ?? null,
        oid: o.oid,
        size: wire(dec(o.sz)),
        triggerPx: wire(dec(o.triggerPx)),
      }));
  }

  async hasPosition(coin: string): Promise<boolean> {
    const dex = dexOfCoin(coin);
    const state = await this.client.clearinghouseState(dex ? { dex } : {});
    // A HIP-3 dex's state may name its coins with or without the dex prefix.
    const named = (c: string) => (dex && !c.includes(":") ? `${dex}:${c}` : c);
    return state.assetPositions.some((p) => named(p.position.coin) === coin && !dec(p.position.szi).isZero());
  }

  private async openOrdersOf(dexes: readonly string[]): Promise<FrontendOpenOrdersResponse> {
    const streamed = this.streamed;
    if (!streamed || this.acted) return this.client.frontendOpenOrdersOf(dexes);
    const lists = await Promise.all(dexes.map(async (dex) => ({ dex, orders: await streamed(dex) })));
    const unread = lists.filter((l) => l.orders === undefined).map((l) => l.dex);
    const read = unread.length > 0 ? await this.client.frontendOpenOrdersOf(unread) : [];
    return [...lists.flatMap((l) => l.orders ?? []), ...read];
  }
}
