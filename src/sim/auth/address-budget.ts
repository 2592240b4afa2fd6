/**
 * Hyperliquid's address-based limit (docs, "Rate limits and user limits"): an address may send
 * 10,000 requests plus one per USDC it has traded in all; a batch of n orders or cancels counts as n.
 * Cancels may go on to min(limit + 100,000, 2 × limit). Past its limit an address still gets one
 * request every 10 seconds. The refusal is the exchange's own text (HTTP 200, status "err").
 * Requests bought with `reserveRequestWeight` (0.0005 USDC each, charged by the venue) are a surplus
 * spent before the limit is counted (`userRateLimit`'s `nRequestsSurplus`).
 */
const INITIAL_REQUESTS = 10_000;
const CANCEL_EXTRA = 100_000;
const EXHAUSTED_EVERY_MS = 10_000;

interface AddressUsage {
  used: number;
  /** Requests reserved with reserveRequestWeight and not yet spent. */
  surplus: number;
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

/** Saved counts per address: the requests used, with the unspent surplus when there is one. */
export type RequestCounts = Record<string, number | { used: number; surplus: number }>;

export class AddressBudget {
  private readonly byUser = new Map<string, AddressUsage>();

  constructor(private readonly wallNow: () => number = Date.now) {}

  used(user: string): number {
    return this.byUser.get(user.toLowerCase())?.used ?? 0;
  }

  surplus(user: string): number {
    return this.byUser.get(user.toLowerCase())?.surplus ?? 0;
  }

  /** `weight` more requests reserved (the venue has charged for them). */
  reserve(user: string, weight: number): void {
    this.usage(user).surplus += weight;
  }

  private usage(user: string): AddressUsage {
    const key = user.toLowerCase();
    let u = this.byUser.get(key);
    if (!u) {
      u = { used: 0, surplus: 0, lastOverMs: Number.NEGATIVE_INFINITY };
      this.byUser.set(key, u);
    }
    return u;
  }

  /**
   * Count `action` against `user` (who traded `volumeUsd`): undefined when it may go ahead, else the
   * exchange's refusal text. A refused request is not counted.
   */
  spend(user: string, action: Record<string, unknown>, volumeUsd: number): string | undefined {
    const u = this.usage(user);
    let n = requestCount(action);
    const fromSurplus = Math.min(u.surplus, n);
    u.surplus -= fromSurplus;
    n -= fromSurplus;
    if (n === 0) return undefined;
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

  snapshot(): RequestCounts {
    return Object.fromEntries(
      [...this.byUser].map(([k, u]) => [k, u.surplus > 0 ? { used: u.used, surplus: u.surplus } : u.used]),
    );
  }

  static restore(snap: RequestCounts, wallNow?: () => number): AddressBudget {
    const b = new AddressBudget(wallNow);
    const count = (n: unknown) => (Number.isSafeInteger(n) && (n as number) >= 0 ? (n as number) : 0);
    for (const [k, v] of Object.entries(snap)) {
      const used = count(typeof v === "number" ? v : v?.used);
      const surplus = count(typeof v === "number" ? 0 : v?.surplus);
      b.byUser.set(k.toLowerCase(), { used, surplus, lastOverMs: Number.NEGATIVE_INFINITY });
    }
    return b;
  }
}
