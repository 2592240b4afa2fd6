/** Takes one registration token for a client: 0 when allowed, else the seconds to wait. */
export interface RateLimiter {
  take(client: string): number | Promise<number>;
}

/**
 * Per-client token buckets in this process (one machine; replicas share PgClientRateLimiter): each client may make `burst` requests at once and `perMinute` a minute
 * on average. Idle full buckets are forgotten, so memory follows active clients only.
 */
export class ClientRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly perMs: number;

  constructor(
    perMinute: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {
    this.perMs = perMinute / 60_000;
  }

  /** Take one token for `client`: 0 when allowed, else the seconds to wait before the next try. */
  take(client: string): number {
    const t = this.now();
    if (this.buckets.size > 10_000) this.sweep(t);
    const b = this.buckets.get(client) ?? { tokens: this.burst, at: t };
    b.tokens = Math.min(this.burst, b.tokens + (t - b.at) * this.perMs);
    b.at = t;
    this.buckets.set(client, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / this.perMs / 1000));
  }

  private sweep(t: number): void {
    for (const [k, b] of this.buckets) {
      if (b.tokens + (t - b.at) * this.perMs >= this.burst) this.buckets.delete(k);
    }
  }
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

function isLoopback(address: string): boolean {
  return LOOPBACK.test(address);
}

/** An IPv4 client as a dual-stack socket reports it (`::ffff:10.0.0.7`) is that IPv4 address. */
const plain = (address: string) => address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, "");

/**
 * The client a registration is counted against, or null when it is exempt. The trusted proxies are
 * LEADERBOARD_TRUSTED_PROXIES when it is set (the balancer, exactly: behind one, a loopback caller
 * is a client like any other), else loopback (a proxy on this machine). A request straight from a
 * trusted address is exempt (local scripts register many agents; a balancer's own request).
 * Behind one, X-Forwarded-For names the client: its nearest address that is not itself a trusted
 * proxy. Anyone else's X-Forwarded-For is ignored (it could be forged).
 */
export function rateLimitedClient(
  remote: string,
  forwardedFor: string | undefined,
  trustedProxies: ReadonlySet<string>,
): string | null {
  const trusted = (a: string) => (trustedProxies.size > 0 ? trustedProxies.has(a) : isLoopback(a));
  const from = plain(remote);
  if (!trusted(from)) return from;
  const hops = (forwardedFor ?? "")
    .split(",")
    .map((h) => plain(h.trim()))
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) if (!trusted(hops[i]!)) return hops[i]!;
  return null;
}
