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

const SLOTS = 60;
const SLOT_MS = 1000;
const MAX_ADDRESSES = 10_000;
/** Kinds kept per address: clients choose the request types, so the list is bounded. */
const MAX_KINDS = 64;

interface Ledger {
  /** Weight per second of the last minute, a ring indexed by second. */
  weight: number[];
  refusals: number[];
  /** The second each slot holds; a slot from an older second counts as empty. */
  second: number[];
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
    l.weight[this.slot(l)]! += weight;
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
    l.refusals[this.slot(l)]! += 1;
    l.refused += 1;
  }

  /** Every address seen, the heaviest over the last minute first. */
  report(): AddressWeight[] {
    const second = Math.floor(this.now() / SLOT_MS);
    const out: AddressWeight[] = [];
    for (const [address, l] of this.ledgers) {
      let lastMinute = 0;
      let refusedLastMinute = 0;
      for (let i = 0; i < SLOTS; i++) {
        if (second - l.second[i]! >= SLOTS) continue;
        lastMinute += l.weight[i]!;
        refusedLastMinute += l.refusals[i]!;
      }
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
        weight: new Array<number>(SLOTS).fill(0),
        refusals: new Array<number>(SLOTS).fill(0),
        second: new Array<number>(SLOTS).fill(Number.NEGATIVE_INFINITY),
        total: 0,
        refused: 0,
        since: this.now(),
        byKind: new Map(),
      };
      this.ledgers.set(address, l);
    }
    return l;
  }

  /** The ring slot of the current second, emptied if it last held an older second. */
  private slot(l: Ledger): number {
    const second = Math.floor(this.now() / SLOT_MS);
    const i = second % SLOTS;
    if (l.second[i] !== second) {
      l.second[i] = second;
      l.weight[i] = 0;
      l.refusals[i] = 0;
    }
    return i;
  }

  private forgetIdle(): void {
    const second = Math.floor(this.now() / SLOT_MS);
    for (const [k, l] of this.ledgers) if (l.second.every((s) => second - s >= SLOTS)) this.ledgers.delete(k);
    if (this.ledgers.size >= MAX_ADDRESSES) this.ledgers.delete(this.ledgers.keys().next().value!);
  }
}
