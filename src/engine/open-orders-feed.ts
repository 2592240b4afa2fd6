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
  /**
   * How long a read waits for the push it needs (a new subscription's first, or the first after our
   * action) before it reads REST instead (default 1000 ms): the push comes within moments, and a
   * REST read costs 20 of the IP's 1200 a minute.
   */
  pushWaitMs?: number;
}

export type StreamedOrder = OpenOrdersWsEvent["orders"][number];

const DEFAULT_REST_EVERY = 12;
const DEFAULT_PUSH_WAIT_MS = 1_000;

/**
 * The account's resting orders on one dex as the `openOrders` stream pushes them (the whole list on
 * every change), with REST (`openOrders`, weight 20) as the backstop. `read` says when the caller
 * must read over REST instead: when the stream has not pushed within `pushWaitMs` since it
 * (re)subscribed or since our last order or cancel (`acted`; a list pushed before our action may not
 * show it), while it is down, and every `restEvery` reads.
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
  /** Reads waiting for the next push. */
  private readonly awaitingPush = new Set<() => void>();
  /**
   * A wait for the push needed now ran out: reads go to REST at once until a push, an action of ours
   * or a new subscription (a stream that does not push is waited for once, not on every read).
   */
  private waitSpent = false;

  constructor(private readonly o: OpenOrdersFeedOptions) {}

  /** `rest`: read over REST now (then call `restDone`); else the list the stream pushed last. */
  async read(): Promise<{ rest: true } | { rest: false; orders: StreamedOrder[] }> {
    await this.ensureSubscribed();
    this.readsSinceRest++;
    const due = this.readsSinceRest >= (this.o.restEvery ?? DEFAULT_REST_EVERY);
    if (!due && !this.current()) await this.awaitPush();
    if (due || !this.current()) return { rest: true };
    return { rest: false, orders: this.latest! };
  }

  /**
   * The dex's orders as the stream has them when it can be trusted (waiting for the push it needs, as
   * `read` does), else undefined. Not counted as a read: the caller reads REST itself when undefined.
   */
  async trusted(): Promise<StreamedOrder[] | undefined> {
    await this.ensureSubscribed();
    if (!this.current()) await this.awaitPush();
    return this.current() ? this.latest : undefined;
  }

  /** The last push can be trusted: the stream is up and has pushed since it (re)started and since our last action. */
  private current(): boolean {
    return this.latest !== undefined && this.isLive() && this.pushes > this.pushesAtAction;
  }

  /** Wait (bounded) for the stream's next push; at once when there is no stream. */
  private async awaitPush(): Promise<void> {
    const sub = this.subscription;
    const waitMs = this.o.pushWaitMs ?? DEFAULT_PUSH_WAIT_MS;
    if (!sub || sub.failureSignal.aborted || waitMs <= 0 || this.waitSpent) return;
    const pushesBefore = this.pushes;
    let done: () => void = () => undefined;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => done(), waitMs);
      done = () => {
        clearTimeout(timer);
        this.awaitingPush.delete(done);
        sub.failureSignal.removeEventListener("abort", done);
        resolve();
      };
      this.awaitingPush.add(done);
      sub.failureSignal.addEventListener("abort", done);
    });
    if (this.pushes === pushesBefore) this.waitSpent = true;
  }

  restDone(): void {
    this.readsSinceRest = 0;
  }

  /** An order, cancel or modify of ours was answered: the stream must push again before it is trusted. */
  acted(): void {
    this.pushesAtAction = this.pushes;
    this.waitSpent = false;
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
    this.waitSpent = false;
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
          this.waitSpent = false;
          for (const done of [...this.awaitingPush]) done();
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
