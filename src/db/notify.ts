import type pg from "pg";
import { asLog, type Log, type LogSink, reason } from "./log.ts";
import { loadPg } from "./pool.ts";
import type { StoreHealth } from "./store-health.ts";

type Handler = (payload: string) => void;

interface PgListenerOptions {
  connectionString: string;
  /** Delay before reconnecting a lost LISTEN connection (default 250 ms), doubling up to 5 s while it fails. */
  retryMs?: number;
  /** One line per change: connection lost, reconnect failing, connected again. */
  log?: LogSink;
  health?: StoreHealth;
}

const MAX_RETRY_MS = 5_000;

/**
 * One LISTEN connection per process, shared by every subscriber. Notifications are hints, not the
 * data: a payload names what changed and readers fetch it. A notification sent while the connection
 * was down is lost, so after every reconnect each subscriber's `onResume` runs and it re-reads
 * whatever it may have missed.
 */
export class PgListener {
  private client: pg.Client | undefined;
  private readonly handlers = new Map<string, Set<Handler>>();
  private readonly resumers = new Set<() => void>();
  private closed = false;
  private connecting: Promise<void> | undefined;
  private readonly retryMs: number;
  private readonly log: Log;
  /** Consecutive failed connects, and whether the failing was logged. */
  private failures = 0;
  private outage = false;

  constructor(private readonly opts: PgListenerOptions) {
    this.retryMs = opts.retryMs ?? 250;
    this.log = asLog(opts.log);
  }

  /** Connect and LISTEN on every channel subscribed so far. */
  start(): Promise<void> {
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /**
   * Connect in the background and stay connected: a failed attempt (Postgres not reachable yet, or
   * gone again) is logged and retried every `retryMs`; subscribers' `onResume` runs once connected.
   */
  keepConnected(): void {
    this.attempt();
  }

  /** Subscribe to a channel; `onResume` runs after each reconnect. Returns the unsubscribe. */
  async subscribe(channel: string, handler: Handler, onResume?: () => void): Promise<() => void> {
    let set = this.handlers.get(channel);
    const fresh = !set;
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
    }
    set.add(handler);
    if (onResume) this.resumers.add(onResume);
    if (fresh && this.client) await this.client.query(`LISTEN ${quoteIdent(channel)}`);
    return () => {
      set.delete(handler);
      if (onResume) this.resumers.delete(onResume);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new (loadPg().Client)({ connectionString: this.opts.connectionString });
    client.on("notification", (msg) => {
      for (const h of this.handlers.get(msg.channel) ?? []) h(msg.payload ?? "");
    });
    client.on("error", (err) => {
      if (this.client !== client) return;
      this.client = undefined;
      this.opts.health?.failed(err);
      this.outage = true;
      this.log.warn(
        { event: "listen_lost", reason: err.message },
        `listen: connection lost (${err.message}); reconnecting`,
      );
      void client.end().catch(() => undefined);
      this.reconnectLater();
    });
    await client.connect();
    for (const channel of this.handlers.keys()) await client.query(`LISTEN ${quoteIdent(channel)}`);
    if (this.closed) {
      await client.end();
      return;
    }
    this.client = client;
  }

  private reconnectLater(): void {
    if (this.closed) return;
    const delay = Math.min(MAX_RETRY_MS, this.retryMs * 2 ** Math.min(10, this.failures));
    setTimeout(() => this.attempt(), delay).unref();
  }

  private attempt(): void {
    if (this.closed) return;
    this.start().then(
      () => {
        this.opts.health?.reached();
        if (this.outage)
          this.log.info({ event: "listen_connected", failures: this.failures }, "listen: connected again");
        this.failures = 0;
        this.outage = false;
        for (const r of this.resumers) r();
      },
      (err: unknown) => {
        if (this.closed) return;
        this.opts.health?.failed(err);
        if (this.failures++ === 0) {
          this.outage = true;
          this.log.warn(
            { event: "listen_failing", reason: reason(err) },
            `listen: connect failed (${reason(err)}); retrying with back-off up to ${MAX_RETRY_MS / 1000} s`,
          );
        }
        this.reconnectLater();
      },
    );
  }
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
