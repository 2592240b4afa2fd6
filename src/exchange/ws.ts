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
import { createLogger, type Logger } from "../core/log.ts";
import type { Address } from "./config.ts";
import { ExchangeError, NetworkError, RateLimitedError, TimeoutError } from "./errors.ts";
import type { CandleInterval } from "./info.ts";
import { instrumentToCoin } from "./symbols.ts";

export type { OpenOrdersWsEvent, UserFillsWsEvent };

/** A live subscription; `unsubscribe()` stops it (idempotent). */
export interface Subscription {
  unsubscribe(): Promise<void>;
  /** Aborted when the subscription could not be restored after a reconnect. */
  failureSignal: AbortSignal;
}

interface StreamOptions {
  url: string;
  isTestnet: boolean;
  /** Reconnect attempts before giving up (default 5). */
  maxRetries?: number;
  timeoutMs?: number;
  /** Where a refusal by the exchange's WebSocket limits goes: one event per refusal (default: the process log). */
  log?: (event: Record<string, unknown>) => void;
  /** Wait after a refusal before connecting again, doubling from `min` to `max` (default 30 s and 10 min). */
  refusalBackoffMs?: { min: number; max: number };
}

/** How the exchange says an IP is over a WebSocket limit (docs/exchange-rules.md, "WebSocket limits"). */
const LIMIT_REFUSAL = /^(Cannot (open|subscribe to|track|send) more than |too many pending post requests)/;
/** The close code of a connection refused over a limit (policy violation). */
const REFUSED_CLOSE_CODE = 1008;
const DEFAULT_REFUSAL_BACKOFF = { min: 30_000, max: 600_000 };

let processLog: Logger | undefined;
function logToProcess(event: Record<string, unknown>): void {
  processLog ??= createLogger("exchange");
  processLog.warn(event, String(event.msg ?? event.event));
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
 *
 * When the exchange refuses the connection or a subscription over its per-IP limits, the stream logs
 * it once, drops the connection (every subscription's `failureSignal` aborts, so its consumer falls
 * back to REST) and refuses new subscriptions without connecting until a back-off has passed: the
 * SDK alone would reconnect within a second, forever, and spend the IP's new-connection minute.
 */
export class HlStream {
  private transport: WebSocketTransport | undefined;
  private client: SubscriptionClient | undefined;
  /** Aborted when the current connection is given up: its subscriptions will not come back. */
  private gone: AbortController | undefined;
  private refusal: { reason: string; until: number } | undefined;
  private backoffMs = 0;
  /** Subscriptions being made, failed at once when the exchange refuses. */
  private readonly pending = new Set<(err: Error) => void>();
  private closed = false;

  constructor(private readonly opts: StreamOptions) {}

  private sdk(): SubscriptionClient {
    if (this.closed) throw new ExchangeError("the WebSocket stream is closed");
    const refusal = this.refusal;
    if (refusal && Date.now() < refusal.until) {
      const s = Math.ceil((refusal.until - Date.now()) / 1000);
      throw new RateLimitedError(
        `WebSocket refused by the exchange: ${refusal.reason} (${this.opts.url}); connecting again in ${s} s`,
      );
    }
    // After its reconnect attempts are spent the SDK's socket stays closed for good: start a new one.
    if (this.transport?.socket.terminationSignal.aborted) this.dropConnection();
    if (!this.client) {
      const transport = new WebSocketTransport({
        url: this.opts.url,
        isTestnet: this.opts.isTestnet,
        timeout: this.opts.timeoutMs ?? 10_000,
        reconnect: {
          WebSocket: oneMessagePerTaskWebSocket(),
          maxRetries: this.opts.maxRetries ?? 5,
        },
      });
      const gone = new AbortController();
      const socket = transport.socket as unknown as EventTarget;
      socket.addEventListener("message", (e) => {
        const reason = limitRefusal((e as MessageEvent).data);
        if (reason !== undefined) this.refused(reason);
      });
      socket.addEventListener("close", (e) => {
        const { code, reason } = e as Event & { code?: number; reason?: string };
        if (code === REFUSED_CLOSE_CODE) this.refused(reason || "connection closed by the exchange (1008)");
      });
      // Reconnects spent: its subscriptions are gone for good. (Our own close() is no failure.)
      socket.addEventListener("terminate", (e) => {
        if ((e as CustomEvent<{ code?: string }>).detail?.code !== "TERMINATED_BY_USER") gone.abort();
      });
      this.transport = transport;
      this.gone = gone;
      this.client = new SubscriptionClient({ transport });
    }
    return this.client;
  }

  /** The exchange refused us over a limit: say so once, hand every stream back to REST, back off. */
  private refused(reason: string): void {
    if (this.refusal && Date.now() < this.refusal.until) return;
    const { min, max } = this.opts.refusalBackoffMs ?? DEFAULT_REFUSAL_BACKOFF;
    this.backoffMs = this.backoffMs === 0 ? min : Math.min(this.backoffMs * 2, max);
    this.refusal = { reason, until: Date.now() + this.backoffMs };
    const retryInS = Math.ceil(this.backoffMs / 1000);
    (this.opts.log ?? logToProcess)({
      event: "ws_refused",
      url: this.opts.url,
      reason,
      retry_in_s: retryInS,
      msg: `WebSocket refused by the exchange (${reason}): streams fall back to REST polling, connecting again in ${retryInS} s`,
    });
    const err = new RateLimitedError(`WebSocket refused by the exchange: ${reason} (${this.opts.url})`);
    for (const reject of this.pending) reject(err);
    this.pending.clear();
    this.dropConnection();
  }

  private dropConnection(): void {
    this.gone?.abort();
    // The SDK's close() does nothing once the socket is closed, and its socket would then reconnect:
    // end the reconnecting socket itself for good.
    this.transport?.socket.close();
    void this.transport?.close().catch(() => undefined);
    this.transport = undefined;
    this.client = undefined;
    this.gone = undefined;
  }

  private async subscribe(
    what: string,
    start: (c: SubscriptionClient) => Promise<ISubscription>,
  ): Promise<Subscription> {
    let reject: ((err: Error) => void) | undefined;
    try {
      const client = this.sdk();
      const gone = this.gone!.signal;
      const refused = new Promise<never>((_, r) => {
        reject = r;
        this.pending.add(r);
      });
      const sub = await Promise.race([start(client), refused]);
      this.backoffMs = 0;
      return {
        unsubscribe: () => sub.unsubscribe(),
        failureSignal: AbortSignal.any([sub.failureSignal, gone]),
      };
    } catch (err) {
      if (err instanceof ExchangeError) throw err;
      const text = err instanceof Error ? err.message : String(err);
      if (/timed? ?out/i.test(text))
        throw new TimeoutError(`WebSocket ${what} subscription timed out (${this.opts.url})`, { cause: err });
      throw new NetworkError(`WebSocket ${what} subscription failed (${this.opts.url}): ${text}`, {
        cause: err,
      });
    } finally {
      if (reject) this.pending.delete(reject);
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

/** The exchange's refusal text when `data` is its error message for a per-IP WebSocket limit. */
function limitRefusal(data: unknown): string | undefined {
  if (typeof data !== "string" || !data.startsWith('{"channel":"error"')) return undefined;
  try {
    const msg = JSON.parse(data) as { data?: unknown };
    return typeof msg.data === "string" && LIMIT_REFUSAL.test(msg.data) ? msg.data : undefined;
  } catch {
    return undefined;
  }
}
