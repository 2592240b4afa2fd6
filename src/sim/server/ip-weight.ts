import { MinuteWindow } from "../../core/minute-window.ts";

/** The exchange's REST weight per minute per IP ("Rate limits and user limits", Hyperliquid docs). */
export const IP_WEIGHT_PER_MINUTE = 1200;

/** Addresses kept before the idle ones are forgotten. */
const MAX_ADDRESSES = 10_000;

/**
 * Hyperliquid's per-IP REST limit: every request's weight (`requestWeight`, plus `responseWeight`
 * once the answer's size is known) is counted against the client's source address, which may spend
 * `weightPerMinute` in any 60 s. The docs say only "1200 per minute"; a sliding window is the
 * stricter reading (a refilling bucket would let a full start plus a minute's refill through, up to
 * twice the limit), and a rehearsal must not be kinder than the exchange. One-second resolution,
 * as `/sim/weight` reports the last minute.
 */
export class IpWeightLimiter {
  private readonly windows = new Map<string, MinuteWindow>();

  constructor(
    readonly weightPerMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!(weightPerMinute > 0)) throw new RangeError("weightPerMinute must be positive");
  }

  /** Spend `weight` for `address`; false (nothing spent) when the last 60 s leave no room for it. */
  take(address: string, weight: number): boolean {
    const now = this.now();
    const w = this.window(address, now);
    if (w.total(now) + weight > this.weightPerMinute) return false;
    w.add(weight, now);
    return true;
  }

  /** Weight owed after answering (per items returned): may take the address past its limit. */
  charge(address: string, weight: number): void {
    if (!(weight > 0)) return;
    const now = this.now();
    this.window(address, now).add(weight, now);
  }

  private window(address: string, now: number): MinuteWindow {
    let w = this.windows.get(address);
    if (!w) {
      if (this.windows.size >= MAX_ADDRESSES) this.sweep(now);
      w = new MinuteWindow();
      this.windows.set(address, w);
    }
    return w;
  }

  /** Forget addresses that spent nothing in the last 60 s: memory follows active clients only. */
  private sweep(now: number): void {
    for (const [k, w] of this.windows) if (w.total(now) === 0) this.windows.delete(k);
  }
}
