import type { ServerResponse } from "node:http";

export interface SseClient {
  res: ServerResponse;
  closed: boolean;
  /** Ordered streams: id of the last event this client was sent. */
  lastId?: number;
  /** Ordered streams: live events held back while the client's catch-up is being written. */
  pending?: OrderedEvent[];
}

/** An event of an ordered stream: ids increase, and a client never gets an id twice or out of order. */
export interface OrderedEvent {
  id: number;
  frame: string;
}

interface SseHubOptions {
  /** Comment keep-alive period (ms). */
  heartbeatMs?: number;
  /** A client whose socket buffer exceeds this many bytes is dropped rather than buffered without bound. */
  maxBufferedBytes?: number;
  /** Extra response headers. */
  headers?: Record<string, string>;
}

/**
 * One hub per stream: a single producer broadcasts to every connected client. Slow clients are
 * dropped, disconnected ones removed, and a comment heartbeat keeps proxies from closing idle streams.
 */
export class SseHub {
  private readonly clients = new Set<SseClient>();
  private readonly heartbeat: NodeJS.Timeout;
  private readonly maxBuffered: number;
  private readonly headers: Record<string, string>;

  constructor(opts: SseHubOptions = {}) {
    this.maxBuffered = opts.maxBufferedBytes ?? 1_048_576;
    this.headers = opts.headers ?? {};
    this.heartbeat = setInterval(() => this.writeAll(": keep-alive\n\n"), opts.heartbeatMs ?? 15_000);
    this.heartbeat.unref();
  }

  get size(): number {
    return this.clients.size;
  }

  /** Take over a raw response as an event stream; `first` is written immediately if given. */
  attach(res: ServerResponse, first?: string): SseClient {
    res.writeHead(200, {
      "Content-Type": "text/event-stream",
      "Cache-Control": "no-cache",
      Connection: "keep-alive",
      "X-Accel-Buffering": "no",
      ...this.headers,
    });
    res.flushHeaders();
    const client: SseClient = { res, closed: false };
    this.clients.add(client);
    const drop = () => this.remove(client);
    res.on("close", drop);
    res.on("error", drop);
    if (first !== undefined) this.write(client, first);
    return client;
  }

  /**
   * Take over a response as an ordered stream: `catchUp` (events the client has not seen: the
   * current one on a first connect, everything after its Last-Event-ID on a reconnect) is written
   * first, while live events published meanwhile wait; then live events follow, each id once.
   */
  async attachOrdered(res: ServerResponse, catchUp: () => Promise<OrderedEvent[]>): Promise<SseClient> {
    const client = this.attach(res);
    client.pending = [];
    try {
      for (const e of await catchUp()) this.writeOrdered(client, e);
    } catch {
      // The client still gets live events; a reconnect with its Last-Event-ID retries the catch-up.
    }
    const held = client.pending;
    client.pending = undefined;
    for (const e of held) this.writeOrdered(client, e);
    return client;
  }

  /** Send an ordered event to every client that has not had it. */
  publish(event: OrderedEvent): void {
    for (const c of this.clients) {
      if (c.pending) c.pending.push(event);
      else this.writeOrdered(c, event);
    }
  }

  /** Broadcast a frame (already formatted, ending in a blank line), optionally only to some clients. */
  broadcast(frame: string, to?: (client: SseClient) => boolean): void {
    for (const c of this.clients) if (!to || to(c)) this.write(c, frame);
  }

  close(): void {
    clearInterval(this.heartbeat);
    for (const c of this.clients) {
      c.closed = true;
      c.res.end();
    }
    this.clients.clear();
  }

  private writeAll(frame: string): void {
    for (const c of this.clients) this.write(c, frame);
  }

  private writeOrdered(client: SseClient, event: OrderedEvent): void {
    if (client.lastId !== undefined && event.id <= client.lastId) return;
    client.lastId = event.id;
    this.write(client, event.frame);
  }

  private write(client: SseClient, frame: string): void {
    if (client.closed) return;
    if (client.res.writableLength > this.maxBuffered) {
      this.remove(client);
      client.res.destroy();
      return;
    }
    client.res.write(frame);
  }

  private remove(client: SseClient): void {
    client.closed = true;
    this.clients.delete(client);
  }
}

/** `data: <json>\n\n`, optionally with an event name and an id (what a reconnect sends as Last-Event-ID). */
export function sseFrame(data: unknown, event?: string, id?: number): string {
  const head = event ? `event: ${event}\n` : "";
  // The id goes last: readers that take the line after `event:` as the data keep working.
  const tail = id !== undefined ? `id: ${id}\n` : "";
  return `${head}data: ${JSON.stringify(data)}\n${tail}\n`;
}

/** The Last-Event-ID a reconnecting client sent, when it is a non-negative integer id. */
export function lastEventId(header: string | string[] | undefined): number | undefined {
  const raw = Array.isArray(header) ? header[0] : header;
  return raw !== undefined && /^\d{1,15}$/.test(raw.trim()) ? Number(raw.trim()) : undefined;
}
