import { type SseSubscription, subscribeSse } from "../feeds/sse-client.ts";
import { historyPageSchema, parseTickData } from "../feeds/tick.ts";
import type { PointsStore } from "./store.ts";

interface MarkRecorderOptions {
  /** The BTCSWP feed: its origin (`http://host:8101`) or its place on a proxy (`http://host:8100/api/feeds/btcswp`). */
  feedUrl: string;
  /** Backfill starts here when nothing is stored yet. */
  fromMs: number;
  onError?: (err: unknown) => void;
}

/**
 * Keeps the mark store complete: subscribes to the feed's SSE stream and, on every (re)connection,
 * backfills the gap since the newest stored mark from the feed's history.
 */
export class MarkRecorder {
  private sub: SseSubscription | undefined;
  private backfilling: Promise<void> | undefined;

  constructor(
    private readonly store: Pick<PointsStore, "addMarks" | "lastMarkTs">,
    private readonly opts: MarkRecorderOptions,
  ) {}

  /** `stream` or `history` URL of the feed, on an origin or behind the proxy. */
  private url(kind: "stream" | "history"): string {
    const base = this.opts.feedUrl.replace(/\/+$/, "");
    return /\/api\/feeds\/[a-z]+$/.test(base) ? `${base}/${kind}` : `${base}/api/${kind}`;
  }

  start(): void {
    this.sub = subscribeSse(this.url("stream"), {
      onOpen: () => {
        // Not awaited: live ticks keep flowing while the gap is filled (inserts are idempotent).
        this.backfilling = this.backfill().catch((err) => this.opts.onError?.(err));
      },
      onEvent: (event, data) => {
        const tick = event === "price" ? parseTickData(data) : null;
        if (tick)
          this.store
            .addMarks([{ ts: tick.timestamp, px: tick.oracle_px }])
            .catch((err) => this.opts.onError?.(err));
      },
      onError: (err) => this.opts.onError?.(err),
    });
  }

  get connected(): boolean {
    return this.sub?.connected ?? false;
  }

  /** Resolves when the latest backfill finished (for tests and orderly starts). */
  async settled(): Promise<void> {
    await this.backfilling;
  }

  /** Page the feed's history from the newest stored mark (or the program start) to now. */
  async backfill(): Promise<void> {
    let from = (await this.store.lastMarkTs()) ?? this.opts.fromMs;
    for (let page = 0; page < 10_000; page++) {
      const res = await fetch(`${this.url("history")}?from=${from}&limit=5000`, {
        signal: AbortSignal.timeout(10_000),
      });
      if (!res.ok) throw new Error(`feed history answered ${res.status}`);
      const body = historyPageSchema.parse(await res.json());
      await this.store.addMarks(body.ticks.map((t) => ({ ts: t.timestamp, px: t.oracle_px })));
      if (body.next_from === null) return;
      from = body.next_from;
    }
  }

  close(): void {
    this.sub?.close();
  }
}
