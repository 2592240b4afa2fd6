import type { Address } from "../exchange/config.ts";
import type { Fill } from "../exchange/info.ts";
import type { Subscription, UserFillsWsEvent } from "../exchange/ws.ts";

/** The part of HlStream the fill feed uses (HlStream satisfies it; tests may fake it). */
export interface UserFillsSource {
  userFills(user: Address, listener: (event: UserFillsWsEvent) => void): Promise<Subscription>;
  onDisconnect(listener: () => void): () => void;
}

export interface FillFeedOptions {
  source: UserFillsSource;
  user: Address;
  /** Read fills over REST at least once per this many reads, even when the stream looks healthy. */
  restEvery?: number;
  /**
   * How long a read waits for a new subscription's snapshot before it reads REST (default 1000 ms):
   * a REST read made once the stream is confirmed is the only one needed, one made before it is not.
   */
  snapshotWaitMs?: number;
}

const DEFAULT_REST_EVERY = 20;
const DEFAULT_SNAPSHOT_WAIT_MS = 1_000;

/**
 * The account's fills as the `userFills` stream pushes them, with REST as the backstop: `read` says
 * when the caller must read over REST instead (before the stream has confirmed its subscription, after
 * a disconnect until a REST read made since the resubscription, and every `restEvery` reads), and
 * otherwise hands over the fills pushed since the last read. Fills seen by both paths are
 * de-duplicated downstream by fill id.
 */
export class FillFeed {
  private subscription: Subscription | undefined;
  private subscribing: Promise<void> | undefined;
  private detach: (() => void) | undefined;
  /** The stream's subscription is confirmed (its snapshot arrived) since the last disconnect. */
  private live = false;
  /** The stream may have missed fills: the next read goes to REST. */
  private stale = true;
  private readsSinceRest = 0;
  private pushed: Fill[] = [];
  private closed = false;
  private attempted = false;
  /** Bumped on every disconnect and every new subscription: a REST read spanning one proves nothing. */
  private epoch = 0;
  private readsSinceAttempt = 0;
  /** Reads waiting for the subscription's snapshot. */
  private readonly awaitingSnapshot = new Set<() => void>();
  /** The snapshot was waited for since the last (re)subscription or drop: not again until the next. */
  private snapshotWaited = false;
  private readonly pushListeners = new Set<(fills: readonly Fill[]) => void>();

  constructor(private readonly o: FillFeedOptions) {}

  /**
   * `rest`: read over REST now (then call `restDone`); else the fills pushed since the last read.
   * `prompted`: the read answers a push (`onPush`), so it does not count towards the periodic REST read.
   */
  async read(opts: { prompted?: boolean } = {}): Promise<{ rest: true } | { rest: false; fills: Fill[] }> {
    await this.ensureSubscribed();
    if (this.stale && !this.isLive()) await this.awaitSnapshot();
    if (!opts.prompted) this.readsSinceRest++;
    const due = this.readsSinceRest >= (this.o.restEvery ?? DEFAULT_REST_EVERY);
    if (!this.isLive() || this.stale || due) return { rest: true };
    return { rest: false, fills: this.take() };
  }

  /**
   * After a REST read: the stream is trusted again only when it was confirmed before that read began
   * (`liveEpoch()` taken then) and has not dropped since, so no fill can fall between the two. Returns
   * the fills pushed meanwhile.
   */
  restDone(liveEpochBefore: number | undefined): Fill[] {
    this.readsSinceRest = 0;
    if (liveEpochBefore === this.epoch && this.isLive()) this.stale = false;
    return this.take();
  }

  /** Taken before a REST read, for `restDone`: the stream's epoch when it is confirmed, else undefined. */
  liveEpoch(): number | undefined {
    return this.isLive() ? this.epoch : undefined;
  }

  /**
   * A subscription up but not confirmed yet: wait (bounded) for its snapshot, so the REST read the
   * caller makes next starts with the stream live and is the last one needed.
   */
  private async awaitSnapshot(): Promise<void> {
    const sub = this.subscription;
    if (!sub || sub.failureSignal.aborted) return;
    const waitMs = this.o.snapshotWaitMs ?? DEFAULT_SNAPSHOT_WAIT_MS;
    if (waitMs <= 0 || this.snapshotWaited) return;
    this.snapshotWaited = true;
    let done: () => void = () => undefined;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => done(), waitMs);
      done = () => {
        clearTimeout(timer);
        this.awaitingSnapshot.delete(done);
        sub.failureSignal.removeEventListener("abort", done);
        resolve();
      };
      this.awaitingSnapshot.add(done);
      sub.failureSignal.addEventListener("abort", done);
    });
  }

  /** Calls `listener` with each batch of fills the stream pushes (the next `read` hands them over); returns the detach. */
  onPush(listener: (fills: readonly Fill[]) => void): () => void {
    this.pushListeners.add(listener);
    return () => this.pushListeners.delete(listener);
  }

  private isLive(): boolean {
    return this.live && this.subscription !== undefined && !this.subscription.failureSignal.aborted;
  }

  close(): void {
    this.closed = true;
    this.detach?.();
    void this.subscription?.unsubscribe().catch(() => undefined);
  }

  private take(): Fill[] {
    const out = this.pushed;
    this.pushed = [];
    return out;
  }

  private ensureSubscribed(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.subscribing) return this.subscribing;
    if (this.subscription && !this.subscription.failureSignal.aborted) return Promise.resolve();
    // A failed or given-up subscription is retried on the backstop schedule, never on every read.
    if (this.attempted && ++this.readsSinceAttempt < (this.o.restEvery ?? DEFAULT_REST_EVERY))
      return Promise.resolve();
    this.attempted = true;
    this.readsSinceAttempt = 0;
    this.live = false;
    this.stale = true;
    this.snapshotWaited = false;
    this.epoch++;
    this.detach?.();
    this.subscription = undefined;
    this.subscribing = this.subscribe().finally(() => {
      this.subscribing = undefined;
    });
    return this.subscribing;
  }

  private async subscribe(): Promise<void> {
    try {
      this.subscription = await this.o.source.userFills(this.o.user, (event) => {
        if (event.isSnapshot) {
          // Our REST read covers everything before this; from here on the stream carries every fill.
          this.live = true;
          for (const done of [...this.awaitingSnapshot]) done();
          return;
        }
        const fills = event.fills as Fill[];
        this.pushed.push(...fills);
        for (const listener of this.pushListeners) listener(fills);
      });
      this.detach = this.o.source.onDisconnect(() => {
        this.live = false;
        this.stale = true;
        this.snapshotWaited = false;
        this.epoch++;
      });
    } catch {
      // No stream: every read goes to REST until a retry succeeds.
      this.subscription = undefined;
    }
  }
}
