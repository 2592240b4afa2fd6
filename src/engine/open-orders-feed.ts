import type { Address } from "../exchange/config.ts";
import type { OpenOrdersWsEvent, Subscription } from "../exchange/ws.ts";

/** The part of HlStream the open-orders feed uses (HlStream satisfies it; tests may fake it). */
export interface OpenOrdersSource {
  openOrders(
    user: Address,
    listener: (event: OpenOrdersWsEvent) => void,
    opts?: { dex?: string },
  ): Promise<Subscription>;
  onDisconnect(listener: () => void): () => void;
}

export interface OpenOrdersFeedOptions {
  source: OpenOrdersSource;
  user: Address;
  /** The dex whose orders are followed ("" = main). */
  dex: string;
  /** Read over REST at least once per this many reads, even when the stream looks healthy. */
  restEvery?: number;
}

export type StreamedOrder = OpenOrdersWsEvent["orders"][number];

const DEFAULT_REST_EVERY = 12;

/**
 * The account's resting orders on one dex as the `openOrders` stream pushes them (the whole list on
 * every change), with REST (`openOrders`, weight 20) as the backstop. `read` says when the caller
 * must read over REST instead: before the stream's first push, after a disconnect, every
 * `restEvery` reads, and after an order or cancel of ours (`acted`) until the stream has pushed
 * again — a list pushed before our action may not show it.
 */
export class OpenOrdersFeed {
  private subscription: Subscription | undefined;
  private subscribing: Promise<void> | undefined;
  private detach: (() => void) | undefined;
  private latest: StreamedOrder[] | undefined;
  /** Pushes received; `pushesAtAction` is the count when our last action was answered. */
  private pushes = 0;
  private pushesAtAction = 0;
  private readsSinceRest = 0;
  private attempted = false;
  private readsSinceAttempt = 0;
  private closed = false;

  constructor(private readonly o: OpenOrdersFeedOptions) {}

  /** `rest`: read over REST now (then call `restDone`); else the list the stream pushed last. */
  async read(): Promise<{ rest: true } | { rest: false; orders: StreamedOrder[] }> {
    await this.ensureSubscribed();
    this.readsSinceRest++;
    const due = this.readsSinceRest >= (this.o.restEvery ?? DEFAULT_REST_EVERY);
    if (this.latest === undefined || !this.isLive() || this.pushes <= this.pushesAtAction || due)
      return { rest: true };
    return { rest: false, orders: this.latest };
  }

  restDone(): void {
    this.readsSinceRest = 0;
  }

  /** An order, cancel or modify of ours was answered: the stream must push again before it is trusted. */
  acted(): void {
    this.pushesAtAction = this.pushes;
  }

  close(): void {
    this.closed = true;
    this.detach?.();
    void this.subscription?.unsubscribe().catch(() => undefined);
  }

  private isLive(): boolean {
    return this.subscription !== undefined && !this.subscription.failureSignal.aborted;
  }

  private ensureSubscribed(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.subscribing) return this.subscribing;
    if (this.isLive()) return Promise.resolve();
    // A failed or given-up subscription is retried on the backstop schedule, never on every read.
    if (this.attempted && ++this.readsSinceAttempt < (this.o.restEvery ?? DEFAULT_REST_EVERY))
      return Promise.resolve();
    this.attempted = true;
    this.readsSinceAttempt = 0;
    this.latest = undefined;
    this.detach?.();
    this.subscription = undefined;
    this.subscribing = this.subscribe().finally(() => {
      this.subscribing = undefined;
    });
    return this.subscribing;
  }

  private async subscribe(): Promise<void> {
    try {
      this.subscription = await this.o.source.openOrders(
        this.o.user,
        (event) => {
          if ((event.dex ?? "") !== this.o.dex) return;
          this.latest = event.orders;
          this.pushes++;
        },
        this.o.dex ? { dex: this.o.dex } : {},
      );
      // After a drop the list may have changed unseen: nothing is trusted until the next push.
      this.detach = this.o.source.onDisconnect(() => {
        this.latest = undefined;
      });
    } catch {
      // No stream: every read goes to REST until a retry succeeds.
      this.subscription = undefined;
    }
  }
}
