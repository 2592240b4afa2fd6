import { createConnection, type Socket } from "node:net";
import type { RateBudget, TakeOptions, WeightBudget } from "./budget.ts";
import { type BrokerRequest, MAX_LINE_BYTES } from "./weight-broker-protocol.ts";

/**
 * A weight budget shared with the machine's other processes through the weight broker (see
 * weight-broker.ts). Background reads (candle scans) wait for the broker's grant: they use what the
 * whole IP leaves. A stopping run's reads (see readsForShutdown) take the sooner of its share and the
 * IP's room. Every other read keeps to this process's own budget (`fallback`, its share) and is
 * told to the broker, as are charges, 429s and answers: the broker sees all the IP spends. When the
 * broker cannot be reached, or its connection drops, the process goes on with its own budget for
 * good, so a trader never waits on a broker that is gone.
 */
interface BrokerBudgetOptions {
  socketPath: string;
  /** The API server the weight is spent on (one budget each at the broker). */
  api: string;
  fallback: RateBudget;
  /** One JSON event per line (the switch to the fallback). */
  log?: (event: Record<string, unknown>) => void;
  now?: () => number;
}

/** A take waiting for the broker's answer: called with true once granted, false when refused or the broker is gone. */
type Waiter = (granted: boolean) => void;

const defaultLog = (event: Record<string, unknown>) =>
  process.stderr.write(`${JSON.stringify({ ts: new Date().toISOString(), ...event })}\n`);

export class BrokerBudget implements WeightBudget {
  private readonly opts: BrokerBudgetOptions;
  private readonly fallback: RateBudget;
  private readonly now: () => number;
  private socket: Socket | undefined;
  /** Gone for good: everything goes to the fallback. */
  private down = false;
  private nextId = 1;
  private readonly waiters = new Map<number, Waiter>();
  /** Until when the broker said the IP backs off after a 429 (any process's). */
  private limitedUntilMs = 0;
  private buffer = "";

  constructor(opts: BrokerBudgetOptions) {
    this.opts = opts;
    this.fallback = opts.fallback;
    this.now = opts.now ?? Date.now;
  }

  /** Whether the broker still keeps this budget (false once fallen back). */
  get brokered(): boolean {
    return !this.down;
  }

  limitedForMs(): number {
    return Math.max(this.fallback.limitedForMs(), this.limitedUntilMs - this.now());
  }

  limited(retryAfterMs = 0): number {
    this.tell({ type: "limited", api: this.opts.api, retryAfterMs });
    return this.fallback.limited(retryAfterMs);
  }

  answered(): void {
    this.tell({ type: "answered", api: this.opts.api });
    this.fallback.answered();
  }

  failed(): void {
    this.tell({ type: "failed", api: this.opts.api });
    this.fallback.failed();
  }

  charge(weight: number, opts: { background?: boolean } = {}): void {
    // Most answers owe nothing more: no line for those.
    if (weight > 0)
      this.tell({ type: "charge", api: this.opts.api, weight, background: opts.background === true });
    this.fallback.charge(weight, opts);
  }

  take(weight: number, opts: TakeOptions = {}): Promise<void> {
    if (opts.shutdown) return this.shutdownTake(weight, opts);
    // A tick's read keeps to this process's own share, so another process's burst never holds it up
    // for the minute the burst takes to age out; the broker is told, so background reads leave it room.
    if (!opts.background) return this.fallback.take(weight, opts).then(() => this.told(weight));
    const grant = this.grant(weight, true, opts.signal);
    // Refused (too many waiting), or the broker gone: the read waits on the process's own budget.
    // Granted, it is not charged to this process's share: the scan borrows from the IP, not from its ticks.
    if (!grant) return this.fallback.take(weight, opts);
    return grant.then((granted) => (granted ? undefined : this.fallback.take(weight, opts)));
  }

  /**
   * A stopping run's read (its open orders to cancel its quotes, its last fills): whichever comes
   * first of its process's share and the broker's grant from the IP's room above the reserve (the
   * broker's queue for reads other than scans), so a share spent for the minute does not hold a
   * stop up while the IP has weight left. The other turn is given up.
   */
  private shutdownTake(weight: number, opts: TakeOptions): Promise<void> {
    const { signal } = opts;
    if (signal?.aborted) return Promise.reject(signal.reason);
    // Room in the share now: no grant is asked (it would be spent at the broker as well).
    if (this.fallback.available() - this.fallback.reserve >= weight)
      return this.fallback.take(weight, opts).then(() => this.told(weight));
    const own = new AbortController();
    const ask = new AbortController();
    const grant = this.grant(weight, false, signal ? AbortSignal.any([signal, ask.signal]) : ask.signal);
    if (!grant) return this.fallback.take(weight, opts).then(() => this.told(weight));
    const mine = this.fallback.take(weight, {
      signal: signal ? AbortSignal.any([signal, own.signal]) : own.signal,
    });
    return new Promise<void>((resolve, reject) => {
      let done = false;
      const finish = (err?: { reason: unknown }) => {
        if (done) return;
        done = true;
        own.abort();
        ask.abort();
        if (err) reject(err.reason);
        else resolve();
      };
      // A turn given up because the other came first is no failure; the caller's own stop is.
      const stopped = () => {
        if (signal?.aborted) finish({ reason: signal.reason });
      };
      mine.then(() => {
        if (done) return;
        this.told(weight);
        finish();
      }, stopped);
      grant.then((granted) => {
        if (granted) finish();
      }, stopped);
    });
  }

  /**
   * Asks the broker for `weight` (undefined when it cannot be reached): true once granted, false
   * when it refused or went away meanwhile; rejects when `signal` aborts first (the broker is told,
   * so the grant is not spent on a read never sent).
   */
  private grant(
    weight: number,
    background: boolean,
    signal: AbortSignal | undefined,
  ): Promise<boolean> | undefined {
    const socket = this.connected();
    if (!socket) return undefined;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = this.nextId++;
    return new Promise<boolean>((resolve, reject) => {
      const giveUp = () => {
        if (!this.waiters.delete(id)) return;
        this.tell({ type: "cancel", id, api: this.opts.api });
        if (this.waiters.size === 0) this.socket?.unref();
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", giveUp, { once: true });
      this.waiters.set(id, (granted) => {
        signal?.removeEventListener("abort", giveUp);
        resolve(granted);
      });
      socket.ref(); // a read is waiting: the process must not exit under it
      this.tell({ type: "take", id, api: this.opts.api, weight, background });
    });
  }

  private told(weight: number): void {
    if (weight > 0) this.tell({ type: "charge", api: this.opts.api, weight, background: false });
  }

  private tell(request: BrokerRequest): void {
    const socket = this.connected();
    if (socket?.writable) socket.write(`${JSON.stringify(request)}\n`);
  }

  private connected(): Socket | undefined {
    if (this.down) return undefined;
    if (this.socket) return this.socket;
    const socket = createConnection(this.opts.socketPath);
    socket.setEncoding("utf8");
    socket.unref();
    socket.on("data", (chunk: string) => this.read(chunk));
    socket.on("error", (e: NodeJS.ErrnoException) => this.fallBack(e.code ?? e.message));
    socket.on("close", () => this.fallBack("connection closed"));
    this.socket = socket;
    return socket;
  }

  private read(chunk: string): void {
    this.buffer += chunk;
    for (let nl = this.buffer.indexOf("\n"); nl >= 0; nl = this.buffer.indexOf("\n")) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      this.reply(line);
    }
    if (this.buffer.length > MAX_LINE_BYTES) this.socket?.destroy();
  }

  private reply(line: string): void {
    let reply: { id?: unknown; error?: unknown; type?: unknown; api?: unknown; ms?: unknown };
    try {
      reply = JSON.parse(line);
    } catch {
      return;
    }
    if (reply.type === "limited" && reply.api === this.opts.api && typeof reply.ms === "number") {
      this.limitedUntilMs = Math.max(this.limitedUntilMs, this.now() + reply.ms);
      return;
    }
    const id = typeof reply.id === "number" ? reply.id : undefined;
    const waiter = id === undefined ? undefined : this.waiters.get(id);
    if (!waiter || id === undefined) return;
    this.waiters.delete(id);
    if (this.waiters.size === 0) this.socket?.unref();
    waiter(reply.error === undefined);
  }

  private fallBack(reason: string): void {
    if (this.down) return;
    this.down = true;
    this.socket?.destroy();
    this.socket = undefined;
    (this.opts.log ?? defaultLog)({
      event: "weight_broker_unavailable",
      reason,
      api: this.opts.api,
      msg: "the weight broker is gone: this process keeps to its own request-weight budget from now on",
    });
    const waiting = [...this.waiters.values()];
    this.waiters.clear();
    for (const answer of waiting) answer(false);
  }
}
