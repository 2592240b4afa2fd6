import { dec } from "../core/decimal.ts";
import { buildStopOrder } from "../exchange/actions.ts";
import { coinToInstrument, instrumentToCoin } from "../exchange/symbols.ts";
import type { BackstopPort, RestingStop, StopAnswer, StopSpec } from "../guard/backstops.ts";
import { stopAlreadyGone } from "../guard/hl-backstops.ts";
import type { PaperGateway, TriggerOutcome, TriggerRequest } from "./paper-gateway.ts";

/**
 * Backstops of a --dry-run (`hl run --dry-run` with a DSL stop) in the paper book: the stop live would rest on
 * the exchange waits there instead, built by the exchange client's own `buildStopOrder` (so its
 * trigger, limit and size are rounded, and an under-lot size thrown, exactly as live) and checked,
 * held and fired by the sim venue's rules (src/sim/venue/trigger-rules.ts) on the mid.
 */
export class PaperBackstopPort implements BackstopPort {
  constructor(private readonly book: PaperGateway) {}

  private spec(coin: string): { instrument: string; assetId: number; szDecimals: number } {
    const instrument = coinToInstrument(coin);
    const known = this.book.described(instrument);
    if (!known) throw new Error(`no instrument spec for ${instrument} in the paper book`);
    return { instrument, assetId: known.asset ?? -1, szDecimals: known.szDecimals };
  }

  async szDecimals(coin: string): Promise<number> {
    return this.spec(coin).szDecimals;
  }

  private request(spec: StopSpec): TriggerRequest {
    const market = this.spec(spec.coin);
    const side = spec.side === "long" ? "sell" : "buy";
    const w = buildStopOrder(
      { instrument: market.instrument, side, size: spec.size, triggerPx: spec.triggerPx, cloid: spec.cloid },
      market,
    );
    return {
      instrument: market.instrument,
      side,
      price: w.p,
      size: w.s,
      triggerPx: w.t.trigger.triggerPx,
      tpsl: w.t.trigger.tpsl,
      reduceOnly: w.r,
      cloid: w.c,
    };
  }

  async placeStop(spec: StopSpec): Promise<StopAnswer> {
    return answer(this.book.placeTrigger(this.request(spec)));
  }

  async modifyStop(spec: StopSpec): Promise<StopAnswer> {
    return answer(this.book.modifyTrigger(spec.cloid, this.request(spec)));
  }

  async cancelStop(coin: string, cloid: `0x${string}`): Promise<void> {
    const refusal = this.book.cancelTrigger(coinToInstrument(coin), cloid);
    if (refusal !== null && !stopAlreadyGone(refusal)) throw new Error(refusal);
  }

  async hasPosition(coin: string): Promise<boolean> {
    return !dec((await this.book.position(coinToInstrument(coin))).qty).isZero();
  }

  async restingStops(): Promise<RestingStop[]> {
    return this.book.triggers().map((t) => ({
      coin: instrumentToCoin(t.instrument),
      cloid: t.cloid,
      oid: t.oid,
      size: t.size,
      triggerPx: t.triggerPx,
    }));
  }
}

function answer(r: TriggerOutcome): StopAnswer {
  return r.status === "resting" ? r : { status: "refused", message: r.message };
}
