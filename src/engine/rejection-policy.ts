import { classifyRejection, HALTED_CLOSE_RETRY_MS, type Rejection } from "../exchange/rejections.ts";
import type { OrderIntent } from "../strategies/sdk.ts";

const MIN_SCALE = 0.125;

/**
 * How the engine reacts to the exchange's refusals instead of sending the same orders again (pure; the
 * caller passes the time): `shrink` halves the size of later orders (recovering by doubling after a
 * tick without it), `skip_coin` sends only reduce-only orders until the cooldown ends, `stop` stops
 * the run, and `retry_next_tick` leaves the next tick's fresh plan alone. A halted market refuses
 * reduce-only orders as well: while it is halted they go out at most once a minute.
 */
export class RejectionPolicy {
  private scale = 1;
  private skipUntilMs = 0;
  private skipFor: Rejection | undefined;
  /** While the market is halted: no reduce-only order before this time. */
  private closeRetryAtMs = 0;
  /** Set by a refusal nothing in the loop can fix. */
  stopFor: Rejection | undefined;

  /** This tick's intents as the policy lets them out, and why some were held back. */
  gate(intents: readonly OrderIntent[], nowMs: number): { intents: OrderIntent[]; held?: string } {
    const skipping = nowMs < this.skipUntilMs;
    const closesHeld = !this.mayClose(nowMs);
    const out: OrderIntent[] = [];
    for (const o of intents) {
      if (o.reduceOnly) {
        if (!closesHeld) out.push(o);
      } else if (!skipping) out.push(this.scale < 1 ? { ...o, size: o.size * this.scale } : o);
    }
    const held = skipping && out.length < intents.length ? this.skipFor?.reason : undefined;
    return held ? { intents: out, held } : { intents: out };
  }

  /** Whether a reduce-only order may go out now (on a halted market, once a minute). */
  mayClose(nowMs: number): boolean {
    return !this.halted(nowMs) || nowMs >= this.closeRetryAtMs;
  }

  /** Whether the exchange said the market is halted, and the cooldown that followed still runs. */
  halted(nowMs: number): boolean {
    return nowMs < this.skipUntilMs && this.skipFor?.reason === "market_halted";
  }

  /** Learn from one tick's refusals (the exchange's messages); returns them classified. */
  learn(messages: readonly string[], nowMs: number): Rejection[] {
    const rejections = messages.map(classifyRejection);
    let shrunk = false;
    for (const r of rejections) {
      if (r.reaction === "shrink") shrunk = true;
      if (r.reaction === "skip_coin" && nowMs + r.cooldownMs > this.skipUntilMs) {
        this.skipUntilMs = nowMs + r.cooldownMs;
        this.skipFor = r;
      }
      if (r.reason === "market_halted") this.closeRetryAtMs = nowMs + HALTED_CLOSE_RETRY_MS;
      if (r.reaction === "stop") this.stopFor ??= r;
    }
    this.scale = shrunk ? Math.max(MIN_SCALE, this.scale / 2) : Math.min(1, this.scale * 2);
    return rejections;
  }
}
