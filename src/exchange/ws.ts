import { createRequire } from "node:module";
import type {
  ActiveAssetCtxWsEvent,
  AllMidsWsEvent,
  CandleWsEvent,
  ISubscription,
  L2BookWsEvent,
  OpenOrdersWsEvent,
  OrderUpdatesWsEvent,
  TradesWsEvent,
  UserFillsWsEvent,
} from "@nktkas/hyperliquid";
import { SubscriptionClient, WebSocketTransport } from "@nktkas/hyperliquid";
import type WebSocketPackage from "ws";
import type { Address } from "./config.ts";
import { ExchangeError, NetworkError, TimeoutError } from "./errors.ts";
import type { CandleInterval } from "./info.ts";
import { instrumentToCoin } from "./symbols.ts";

export type {
  ActiveAssetCtxWsEvent,
  AllMidsWsEvent,
  CandleWsEvent,
  L2BookWsEvent,
  OpenOrdersWsEvent,
  OrderUpdatesWsEvent,
  TradesWsEvent,
  UserFillsWsEvent,
};

/** A live subscription; `unsubscribe()` stops it (idempotent). */
export interface Subscription {
  unsubscribe(): Promise<void>;
  /** Aborted when the subscription could not be restored after a reconnect. */
  failureSignal: AbortSignal;
}

export interface StreamOptions {
  url: string;
  isTestnet: boolean;
  /** Reconnect attempts before giving up (default 5). */
  maxRetries?: number;
  timeoutMs?: number;
}

/**
 * `ws` emits every message of one network read in the same tick by default, unlike a browser's
 * WebSocket. The SDK pairs a subscription ack with the first pending request it is a subset of and
 * drops answered requests only in a microtask, so with several acks in one read an earlier
 * `{type:"allMids"}` request also swallows the acks of `{type:"allMids", dex}` and those time out.
 * One message per task (the WHATWG behaviour the SDK is written for) keeps the pairing right.
 */
type WebSocketClass = new (url: string | URL, protocols?: string | string[]) => globalThis.WebSocket;
let oneMessagePerTask: WebSocketClass | undefined;
/** Defined (and `ws` loaded) on the first connection: a process that never streams never loads it. */
function oneMessagePerTaskWebSocket(): WebSocketClass {
  if (!oneMessagePerTask) {
    const WebSocket = createRequire(import.meta.url)("ws") as typeof WebSocketPackage;
    class OneMessagePerTaskWebSocket extends WebSocket {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols, { allowSynchronousEvents: false });
      }
    }
    oneMessagePerTask = OneMessagePerTaskWebSocket as unknown as WebSocketClass;
  }
  return oneMessagePerTask;
}

/**
 * Hyperliquid WebSocket subscriptions over one connection (opened lazily on the first subscription,
 * reconnecting with back-off, re-subscribing after a reconnect). Node 20 has no global WebSocket, so
 * the `ws` package is handed to the SDK as the constructor.
 */
export class HlStream {
  private transport: WebSocketTransport | undefined;
  private client: SubscriptionClient | undefined;
  private closed = false;

  constructor(private readonly opts: StreamOptions) {}

  private sdk(): SubscriptionClient {
    if (this.closed) throw new ExchangeError("the WebSocket stream is closed");
    // After its reconnect attempts are spent the SDK's socket stays closed for good: start a new one.
    if (this.transport?.socket.terminationSignal.aborted) {
      void this.transport.close().catch(() => undefined);
      this.transport = undefined;
      this.client = undefined;
    }
    if (!this.client) {
      this.transport = new WebSocketTransport({
        url: this.opts.url,
        isTestnet: this.opts.isTestnet,
        timeout: this.opts.timeoutMs ?? 10_000,
        reconnect: {
          WebSocket: oneMessagePerTaskWebSocket(),
          maxRetries: this.opts.maxRetries ?? 5,
        },
      });
      this.client = new SubscriptionClient({ transport: this.transport });
    }
    return this.client;
  }

  private async subscribe(
    what: string,
    start: (c: SubscriptionClient) => Promise<ISubscription>,
  ): Promise<Subscription> {
    try {
      return await start(this.sdk());
    } catch (err) {
      if (err instanceof ExchangeError) throw err;
      const text = err instanceof Error ? err.message : String(err);
      if (/timed? ?out/i.test(text))
        throw new TimeoutError(`WebSocket ${what} subscription timed out (${this.opts.url})`, { cause: err });
      throw new NetworkError(`WebSocket ${what} subscription failed (${this.opts.url}): ${text}`, {
        cause: err,
      });
    }
  }

  /** Mid prices of one dex (main when `dex` is omitted), pushed on every change. */
  allMids(listener: (event: AllMidsWsEvent) => void, opts: { dex?: string } = {}): Promise<Subscription> {
    return this.subscribe("allMids", (c) =>
      opts.dex ? c.allMids({ dex: opts.dex }, listener) : c.allMids(listener),
    );
  }

  /** Order book snapshots of an instrument or coin. */
  l2Book(instrumentOrCoin: string, listener: (event: L2BookWsEvent) => void): Promise<Subscription> {
    return this.subscribe("l2Book", (c) => c.l2Book({ coin: instrumentToCoin(instrumentOrCoin) }, listener));
  }

  /** Public trades of an instrument or coin. */
  trades(instrumentOrCoin: string, listener: (event: TradesWsEvent) => void): Promise<Subscription> {
    return this.subscribe("trades", (c) => c.trades({ coin: instrumentToCoin(instrumentOrCoin) }, listener));
  }

  /** A perp's context (funding rate, open interest, oracle/mark/mid price, day volume), pushed on change. */
  activeAssetCtx(
    instrumentOrCoin: string,
    listener: (event: ActiveAssetCtxWsEvent) => void,
  ): Promise<Subscription> {
    return this.subscribe("activeAssetCtx", (c) =>
      c.activeAssetCtx({ coin: instrumentToCoin(instrumentOrCoin) }, listener),
    );
  }

  /** Candles of an instrument or coin. */
  candle(
    instrumentOrCoin: string,
    interval: CandleInterval,
    listener: (event: CandleWsEvent) => void,
  ): Promise<Subscription> {
    return this.subscribe("candle", (c) =>
      c.candle({ coin: instrumentToCoin(instrumentOrCoin), interval }, listener),
    );
  }

  /** The user's fills (first event is a snapshot with `isSnapshot: true`). */
  userFills(user: Address, listener: (event: UserFillsWsEvent) => void): Promise<Subscription> {
    return this.subscribe("userFills", (c) => c.userFills({ user }, listener));
  }

  /** The user's resting orders on one dex (main when `dex` is omitted), the whole list on every change. */
  openOrders(
    user: Address,
    listener: (event: OpenOrdersWsEvent) => void,
    opts: { dex?: string } = {},
  ): Promise<Subscription> {
    return this.subscribe("openOrders", (c) =>
      c.openOrders(opts.dex ? { user, dex: opts.dex } : { user }, listener),
    );
  }

  /** Status changes of the user's orders. */
  orderUpdates(user: Address, listener: (event: OrderUpdatesWsEvent) => void): Promise<Subscription> {
    return this.subscribe("orderUpdates", (c) => c.orderUpdates({ user }, listener));
  }

  /**
   * Call `listener` each time the connection drops (the SDK then reconnects on its own, and a
   * subscription it cannot restore aborts its `failureSignal`). Returns the function that detaches it.
   */
  onDisconnect(listener: () => void): () => void {
    this.sdk();
    const socket = this.transport!.socket as unknown as EventTarget;
    const handler = () => listener();
    socket.addEventListener("close", handler);
    return () => socket.removeEventListener("close", handler);
  }

  /** Close the connection and drop every subscription. Safe to call more than once. */
  async close(): Promise<void> {
    this.closed = true;
    const transport = this.transport;
    this.transport = undefined;
    this.client = undefined;
    if (transport) await transport.close().catch(() => undefined);
  }
}
