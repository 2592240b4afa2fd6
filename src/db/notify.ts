import type pg from "pg";
import { loadPg } from "./pool.ts";

type Handler = (payload: string) => void;

export interface PgListenerOptions {
  connectionString: string;
  /** Delay before reconnecting a lost LISTEN connection (default 250 ms). */
  retryMs?: number;
  log?: (line: string) => void;
}

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
  private readonly log: (line: string) => void;

  constructor(private readonly opts: PgListenerOptions) {
    this.retryMs = opts.retryMs ?? 250;
    this.log = opts.log ?? ((line) => process.stderr.write(`${line}\n`));
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
    this.attempt((err) => `listen: connect failed (${err}); retrying`);
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
      this.log(`listen: connection lost (${err.message}); reconnecting`);
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
    setTimeout(() => this.attempt((err) => `listen: reconnect failed (${err})`), this.retryMs).unref();
  }

  private attempt(failure: (err: string) => string): void {
    if (this.closed) return;
    this.start().then(
      () => {
        for (const r of this.resumers) r();
      },
      (err: unknown) => {
        if (this.closed) return;
        this.log(failure(err instanceof Error ? err.message : String(err)));
        this.reconnectLater();
      },
    );
  }
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
