/** The exchange's REST weight per minute per IP ("Rate limits and user limits", Hyperliquid docs). */
export const IP_WEIGHT_PER_MINUTE = 1200;

/**
 * Hyperliquid's per-IP REST limit: every request's weight (`requestWeight`, plus `responseWeight`
 * once the answer's size is known) is counted against the client's source address, which may spend
 * `weightPerMinute` a minute. A token bucket that refills continuously, as large as a minute's
 * weight; an address over it is refused until enough has refilled.
 */
export class IpWeightLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly perMs: number;

  constructor(
    readonly weightPerMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!(weightPerMinute > 0)) throw new RangeError("weightPerMinute must be positive");
    this.perMs = weightPerMinute / 60_000;
  }

  /** Spend `weight` for `address`; false (nothing spent) when its budget does not cover it. */
  take(address: string, weight: number): boolean {
    const b = this.bucket(address);
    if (b.tokens < weight) return false;
    b.tokens -= weight;
    return true;
  }

  /** Weight owed after answering (per items returned): may leave the address in debt. */
  charge(address: string, weight: number): void {
    if (weight > 0) this.bucket(address).tokens -= weight;
  }

  /** Seconds until `weight` is available to `address` (at least 1). */
  retryAfterSeconds(address: string, weight: number): number {
    const b = this.bucket(address);
    return Math.max(1, Math.ceil((weight - b.tokens) / this.perMs / 1000));
  }

  private bucket(address: string): { tokens: number; at: number } {
    const t = this.now();
    if (this.buckets.size > 10_000) this.sweep(t);
    let b = this.buckets.get(address);
    if (!b) {
      b = { tokens: this.weightPerMinute, at: t };
      this.buckets.set(address, b);
    }
    b.tokens = Math.min(this.weightPerMinute, b.tokens + (t - b.at) * this.perMs);
    b.at = t;
    return b;
  }

  /** Forget addresses whose bucket has refilled: memory follows active clients only. */
  private sweep(t: number): void {
    for (const [k, b] of this.buckets) {
      if (b.tokens + (t - b.at) * this.perMs >= this.weightPerMinute) this.buckets.delete(k);
    }
  }
}
