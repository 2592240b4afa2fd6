import type { ServerResponse } from "node:http";

export interface SseClient {
  res: ServerResponse;
  closed: boolean;
}

export interface SseHubOptions {
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

/** `data: <json>\n\n`, optionally with an event name. */
export function sseFrame(data: unknown, event?: string): string {
  const head = event ? `event: ${event}\n` : "";
  return `${head}data: ${JSON.stringify(data)}\n\n`;
}
