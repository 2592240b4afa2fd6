import type { ServerResponse } from "node:http";
import { type SseClient, SseHub, sseFrame } from "../../http/sse.ts";
import type { StatusObject } from "./status-reader.ts";

/**
 * `/api/feed`: one shared watcher for all clients. It checks the status every `intervalMs` (2 s)
 * and broadcasts only when `tick_count` has advanced; each new client gets the current status at once.
 */
export class StatusFeed {
  private readonly hub: SseHub;
  private readonly timer: NodeJS.Timeout;
  /** The tick each client last received, so a client never gets the same tick twice. */
  private readonly sent = new WeakMap<SseClient, number>();

  constructor(
    private readonly read: () => StatusObject,
    opts: { intervalMs?: number; headers?: Record<string, string>; heartbeatMs?: number } = {},
  ) {
    this.hub = new SseHub({ headers: opts.headers, heartbeatMs: opts.heartbeatMs });
    this.timer = setInterval(() => this.check(), opts.intervalMs ?? 2000);
    this.timer.unref();
  }

  get clients(): number {
    return this.hub.size;
  }

  attach(res: ServerResponse): void {
    const current = this.read();
    const client = this.hub.attach(res, sseFrame(current));
    this.sent.set(client, tickOf(current));
  }

  /** Send to every client whose last tick differs (a reset to a lower tick, e.g. a fresh run, counts). */
  check(): void {
    if (this.hub.size === 0) return;
    const status = this.read();
    const tick = tickOf(status);
    const frame = sseFrame(status);
    this.hub.broadcast(frame, (c) => {
      if (this.sent.get(c) === tick) return false;
      this.sent.set(c, tick);
      return true;
    });
  }

  close(): void {
    clearInterval(this.timer);
    this.hub.close();
  }
}

function tickOf(s: StatusObject): number {
  return s.status === "running" ? s.tick_count : 0;
}
