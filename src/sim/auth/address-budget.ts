/**
 * Hyperliquid's address-based limit (docs, "Rate limits and user limits"): an address may send
 * 10,000 requests plus one per USDC it has traded in all; a batch of n orders or cancels counts as n.
 * Cancels may go on to min(limit + 100,000, 2 × limit). Past its limit an address still gets one
 * request every 10 seconds. The refusal is the exchange's own text (HTTP 200, status "err").
 */
const INITIAL_REQUESTS = 10_000;
const CANCEL_EXTRA = 100_000;
const EXHAUSTED_EVERY_MS = 10_000;

export interface AddressUsage {
  used: number;
  /** Wall time of the last request let through while over the limit. */
  lastOverMs: number;
}

/** Requests an address that traded `volumeUsd` may send. */
export function requestCap(volumeUsd: number): number {
  return INITIAL_REQUESTS + Math.floor(Math.max(0, volumeUsd));
}

/** How many requests an action counts as: each order or cancel of a batch, at least one. */
export function requestCount(action: Record<string, unknown>): number {
  const list = action.orders ?? action.cancels ?? action.modifies;
  return Array.isArray(list) ? Math.max(1, list.length) : 1;
}

function isCancel(action: Record<string, unknown>): boolean {
  return action.type === "cancel" || action.type === "cancelByCloid";
}

export class AddressBudget {
  private readonly byUser = new Map<string, AddressUsage>();

  constructor(private readonly wallNow: () => number = Date.now) {}

  used(user: string): number {
    return this.byUser.get(user.toLowerCase())?.used ?? 0;
  }

  /**
   * Count `action` against `user` (who traded `volumeUsd`): undefined when it may go ahead, else the
   * exchange's refusal text. A refused request is not counted.
   */
  spend(user: string, action: Record<string, unknown>, volumeUsd: number): string | undefined {
    const key = user.toLowerCase();
    let u = this.byUser.get(key);
    if (!u) {
      u = { used: 0, lastOverMs: Number.NEGATIVE_INFINITY };
      this.byUser.set(key, u);
    }
    const n = requestCount(action);
    const cap = requestCap(volumeUsd);
    const limit = isCancel(action) ? Math.min(cap + CANCEL_EXTRA, 2 * cap) : cap;
    if (u.used + n > limit) {
      const now = this.wallNow();
      if (now - u.lastOverMs < EXHAUSTED_EVERY_MS) {
        const traded = Number(Math.max(0, volumeUsd).toFixed(2));
        return (
          `Too many cumulative requests sent (${u.used + n} > ${cap}) for cumulative volume traded ` +
          `$${traded}. Place taker orders to free up 1 request per USDC traded.`
        );
      }
      u.lastOverMs = now;
    }
    u.used += n;
    return undefined;
  }

  snapshot(): Record<string, number> {
    return Object.fromEntries([...this.byUser].map(([k, u]) => [k, u.used]));
  }

  static restore(snap: Record<string, number>, wallNow?: () => number): AddressBudget {
    const b = new AddressBudget(wallNow);
    for (const [k, used] of Object.entries(snap))
      if (Number.isSafeInteger(used) && used >= 0)
        b.byUser.set(k.toLowerCase(), { used, lastOverMs: Number.NEGATIVE_INFINITY });
    return b;
  }
}
