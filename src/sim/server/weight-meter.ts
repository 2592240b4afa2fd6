import { MinuteWindow } from "../../core/minute-window.ts";

/** What one client source address has spent, as `GET /sim/weight` reports it. */
export interface AddressWeight {
  address: string;
  /** Weight charged over the last 60 s (a refused request is charged nothing, as on the exchange). */
  lastMinute: number;
  /** Weight charged since the address was first seen. */
  total: number;
  /** Requests refused with 429 over the last 60 s, and since first seen. */
  refusedLastMinute: number;
  refused: number;
  /** Wall time of the address's first request (ms). */
  since: number;
  /** Requests and weight since first seen, per request kind (`info:meta`, `exchange:order`, …). */
  byKind: Record<string, { requests: number; weight: number }>;
}

const MAX_ADDRESSES = 10_000;
/** Kinds kept per address: clients choose the request types, so the list is bounded. */
const MAX_KINDS = 64;

interface Ledger {
  /** Weight charged, and requests refused, over the last minute. */
  weight: MinuteWindow;
  refusals: MinuteWindow;
  total: number;
  refused: number;
  since: number;
  byKind: Map<string, { requests: number; weight: number }>;
}

/**
 * Request weight spent per client source address, whether or not a limit is enforced: how much of
 * Hyperliquid's per-IP minute a set of clients behind one address uses. A one-second-resolution
 * window, so the figure is what the last 60 s cost.
 */
export class WeightMeter {
  private readonly ledgers = new Map<string, Ledger>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * `weight` spent by `address` on a request of `kind`; `extra` is weight owed after the answer
   * (per items returned), counted to the same request.
   */
  spend(address: string, kind: string, weight: number, extra = false): void {
    if (!(weight > 0) && extra) return;
    const l = this.ledger(address);
    l.weight.add(weight, this.now());
    l.total += weight;
    let k = l.byKind.get(l.byKind.size >= MAX_KINDS && !l.byKind.has(kind) ? "other" : kind);
    if (!k) {
      k = { requests: 0, weight: 0 };
      l.byKind.set(l.byKind.size >= MAX_KINDS ? "other" : kind, k);
    }
    if (!extra) k.requests += 1;
    k.weight += weight;
  }

  /** A request from `address` was refused with 429. */
  refuse(address: string): void {
    const l = this.ledger(address);
    l.refusals.add(1, this.now());
    l.refused += 1;
  }

  /** Every address seen, the heaviest over the last minute first. */
  report(): AddressWeight[] {
    const now = this.now();
    const out: AddressWeight[] = [];
    for (const [address, l] of this.ledgers) {
      const lastMinute = l.weight.total(now);
      const refusedLastMinute = l.refusals.total(now);
      const byKind = Object.fromEntries([...l.byKind].sort((a, b) => b[1].weight - a[1].weight));
      out.push({
        address,
        lastMinute,
        total: l.total,
        refusedLastMinute,
        refused: l.refused,
        since: l.since,
        byKind,
      });
    }
    return out.sort((a, b) => b.lastMinute - a.lastMinute || b.total - a.total);
  }

  private ledger(address: string): Ledger {
    let l = this.ledgers.get(address);
    if (!l) {
      // Memory follows the clients: a busy public world forgets the quietest addresses first.
      if (this.ledgers.size >= MAX_ADDRESSES) this.forgetIdle();
      l = {
        weight: new MinuteWindow(),
        refusals: new MinuteWindow(),
        total: 0,
        refused: 0,
        since: this.now(),
        byKind: new Map(),
      };
      this.ledgers.set(address, l);
    }
    return l;
  }

  private forgetIdle(): void {
    const now = this.now();
    for (const [k, l] of this.ledgers) if (l.weight.idle(now) && l.refusals.idle(now)) this.ledgers.delete(k);
    if (this.ledgers.size >= MAX_ADDRESSES) this.ledgers.delete(this.ledgers.keys().next().value!);
  }
}
