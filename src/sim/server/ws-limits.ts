import { MinuteWindow } from "../../core/minute-window.ts";

/**
 * Hyperliquid's WebSocket limits per IP ("Rate limits and user limits", Hyperliquid docs): connections
 * held, new connections a minute, subscriptions, distinct users named by user subscriptions, messages
 * sent a minute and post requests awaiting their answer, all across the address's connections.
 */
export interface WsLimits {
  connections: number;
  newConnectionsPerMinute: number;
  subscriptions: number;
  users: number;
  messagesPerMinute: number;
  inflightPosts: number;
}

export const WS_LIMITS: WsLimits = {
  connections: 10,
  newConnectionsPerMinute: 30,
  subscriptions: 1000,
  users: 10,
  messagesPerMinute: 2000,
  inflightPosts: 100,
};

/** The close code the exchange ends a connection over the limit with (policy violation). */
export const WS_REFUSED_CLOSE_CODE = 1008;

/** What the exchange answers, word for word where it is on record (docs/exchange-rules.md). */
const wsRefusal = {
  connections: (l: WsLimits) => `Cannot open more than ${l.connections} connections.`,
  newConnections: (l: WsLimits) =>
    `Cannot open more than ${l.newConnectionsPerMinute} new connections per minute.`,
  subscriptions: (l: WsLimits) => `Cannot subscribe to more than ${l.subscriptions} channels.`,
  users: (l: WsLimits) => `Cannot track more than ${l.users} total users.`,
  messages: (l: WsLimits) => `Cannot send more than ${l.messagesPerMinute} messages per minute.`,
  inflightPosts: (id: number) => `too many pending post requests id=${id}`,
} as const;

const REFUSAL_KINDS = [
  "connections",
  "newConnections",
  "subscriptions",
  "users",
  "messages",
  "inflightPosts",
] as const;

type WsRefusalKind = (typeof REFUSAL_KINDS)[number];

/** One source address's use of the WebSocket, as `GET /sim/ws-limits` reports it. */
export interface AddressWsUse {
  address: string;
  connections: number;
  newConnectionsLastMinute: number;
  subscriptions: number;
  /** Subscriptions held, per type (`l2Book`, `userFills`, …). */
  subscriptionsByType: Record<string, number>;
  users: number;
  messagesLastMinute: number;
  inflightPosts: number;
  /** Highest number of connections held at once since first seen. */
  peakConnections: number;
  peakSubscriptions: number;
  peakUsers: number;
  /** Refusals since first seen, per limit. */
  refused: Record<WsRefusalKind, number>;
}

/** What the report shows as the ledger holds it; the rest is derived from the ledger's windows and maps. */
type HeldAsReported = Pick<
  AddressWsUse,
  | "connections"
  | "subscriptions"
  | "inflightPosts"
  | "peakConnections"
  | "peakSubscriptions"
  | "peakUsers"
  | "refused"
>;

interface Ledger extends HeldAsReported {
  opened: MinuteWindow;
  byType: Map<string, number>;
  /** user (lower-case) → user subscriptions naming it */
  users: Map<string, number>;
  messages: MinuteWindow;
}

const MAX_ADDRESSES = 10_000;

/**
 * The WebSocket's use per client source address, whether or not the limits are enforced (`limits`
 * undefined: counted, never refused). Each method that may refuse returns the exchange's refusal text,
 * or undefined when allowed (and then counted).
 */
export class WsLimiter {
  private readonly ledgers = new Map<string, Ledger>();

  constructor(
    readonly limits: WsLimits | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** A new connection from `address`: every attempt counts toward the minute's new connections. */
  open(address: string): string | undefined {
    const l = this.ledger(address);
    const t = this.now();
    const recent = l.opened.total(t);
    l.opened.add(1, t);
    if (this.limits && recent >= this.limits.newConnectionsPerMinute)
      return this.refuse(l, "newConnections", wsRefusal.newConnections(this.limits));
    if (this.limits && l.connections >= this.limits.connections)
      return this.refuse(l, "connections", wsRefusal.connections(this.limits));
    l.connections += 1;
    l.peakConnections = Math.max(l.peakConnections, l.connections);
    return undefined;
  }

  /** An accepted connection closed. */
  close(address: string): void {
    const l = this.ledgers.get(address);
    if (l && l.connections > 0) l.connections -= 1;
  }

  /** A message received from `address`; refused ones are not counted toward the minute. */
  message(address: string): string | undefined {
    const l = this.ledger(address);
    const t = this.now();
    if (this.limits && l.messages.total(t) >= this.limits.messagesPerMinute)
      return this.refuse(l, "messages", wsRefusal.messages(this.limits));
    l.messages.add(1, t);
    return undefined;
  }

  /** A subscription of `type`, naming `user` when it is user-specific. */
  subscribe(address: string, type: string, user: string | undefined): string | undefined {
    const l = this.ledger(address);
    if (this.limits && l.subscriptions >= this.limits.subscriptions)
      return this.refuse(l, "subscriptions", wsRefusal.subscriptions(this.limits));
    const key = user?.toLowerCase();
    if (key !== undefined && this.limits && !l.users.has(key) && l.users.size >= this.limits.users)
      return this.refuse(l, "users", wsRefusal.users(this.limits));
    l.subscriptions += 1;
    l.byType.set(type, (l.byType.get(type) ?? 0) + 1);
    if (key !== undefined) l.users.set(key, (l.users.get(key) ?? 0) + 1);
    l.peakSubscriptions = Math.max(l.peakSubscriptions, l.subscriptions);
    l.peakUsers = Math.max(l.peakUsers, l.users.size);
    return undefined;
  }

  /** A subscription ended (unsubscribed, or its connection closed). */
  unsubscribe(address: string, type: string, user: string | undefined): void {
    const l = this.ledgers.get(address);
    if (!l) return;
    if (l.subscriptions > 0) l.subscriptions -= 1;
    const left = (l.byType.get(type) ?? 0) - 1;
    if (left > 0) l.byType.set(type, left);
    else l.byType.delete(type);
    const key = user?.toLowerCase();
    if (key === undefined) return;
    const n = (l.users.get(key) ?? 0) - 1;
    if (n > 0) l.users.set(key, n);
    else l.users.delete(key);
  }

  /** A post request `id` now awaits its answer. */
  postStart(address: string, id: number): string | undefined {
    const l = this.ledger(address);
    if (this.limits && l.inflightPosts >= this.limits.inflightPosts)
      return this.refuse(l, "inflightPosts", wsRefusal.inflightPosts(id));
    l.inflightPosts += 1;
    return undefined;
  }

  /** A post request was answered (or its connection closed). */
  postEnd(address: string): void {
    const l = this.ledgers.get(address);
    if (l && l.inflightPosts > 0) l.inflightPosts -= 1;
  }

  /** Every address seen, the one holding the most connections first. */
  report(): AddressWsUse[] {
    const t = this.now();
    return [...this.ledgers]
      .map(([address, l]) => ({
        address,
        connections: l.connections,
        newConnectionsLastMinute: l.opened.total(t),
        subscriptions: l.subscriptions,
        subscriptionsByType: Object.fromEntries([...l.byType].sort((a, b) => b[1] - a[1])),
        users: l.users.size,
        messagesLastMinute: l.messages.total(t),
        inflightPosts: l.inflightPosts,
        peakConnections: l.peakConnections,
        peakSubscriptions: l.peakSubscriptions,
        peakUsers: l.peakUsers,
        refused: { ...l.refused },
      }))
      .sort((a, b) => b.connections - a.connections || b.subscriptions - a.subscriptions);
  }

  private refuse(l: Ledger, kind: WsRefusalKind, text: string): string {
    l.refused[kind] += 1;
    return text;
  }

  private ledger(address: string): Ledger {
    let l = this.ledgers.get(address);
    if (!l) {
      if (this.ledgers.size >= MAX_ADDRESSES) this.forgetIdle();
      l = {
        connections: 0,
        opened: new MinuteWindow(),
        subscriptions: 0,
        byType: new Map(),
        users: new Map(),
        messages: new MinuteWindow(),
        inflightPosts: 0,
        peakConnections: 0,
        peakSubscriptions: 0,
        peakUsers: 0,
        refused: Object.fromEntries(REFUSAL_KINDS.map((kind) => [kind, 0])) as Record<WsRefusalKind, number>,
      };
      this.ledgers.set(address, l);
    }
    return l;
  }

  /** Memory follows the clients: addresses with no connection and a quiet minute are forgotten first. */
  private forgetIdle(): void {
    const t = this.now();
    for (const [k, l] of this.ledgers)
      if (l.connections === 0 && l.opened.idle(t) && l.messages.idle(t)) this.ledgers.delete(k);
  }
}
