import { dec, wire } from "../core/decimal.ts";
import type { HlClient } from "../exchange/client.ts";
import { coinToInstrument } from "../exchange/index.ts";
import { dexOfCoin } from "../exchange/symbols.ts";
import type { BackstopPort, ListingOptions, RestingStop, StopAnswer, StopSpec } from "./backstops.ts";

/** A cancel's refusal that says the stop already triggered, filled or was cancelled: nothing rests under that cloid. */
export function stopAlreadyGone(refusal: string): boolean {
  return /never placed|already canceled|filled/i.test(refusal);
}

/** Backstops on Hyperliquid (paper, testnet or mainnet alike) through the shared client. */
export class HlBackstopPort implements BackstopPort {
  constructor(private readonly client: HlClient) {}

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
    const r = await this.client.placeStop(this.request(spec));
    return r.status === "resting" ? r : { status: "refused", message: r.message };
  }

  async modifyStop(spec: StopSpec): Promise<StopAnswer> {
    const r = await this.client.modifyStop(this.request(spec));
    return r.status === "resting" ? r : { status: "refused", message: r.message };
  }

  async cancelStop(coin: string, cloid: `0x${string}`): Promise<void> {
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
    const orders = await this.client.frontendOpenOrdersOf([...dexes]);
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
}
