import type { PgListener } from "../../db/notify.ts";
import type { FeedEngine } from "./engine.ts";
import { FEED_TICK_CHANNEL, type FeedTickNotice } from "./pg-store.ts";
import type { FeedDef } from "./profiles.ts";
import type { FeedStore } from "./store.ts";
import type { FeedTick } from "./tick.ts";

/** What a feed's origin serves: the latest tick, the stored history, and live ticks in order. */
export interface TickFeed {
  readonly def: FeedDef;
  latest(): Promise<FeedTick | undefined>;
  /** Stored ticks with fromMs ≤ ts ≤ toMs, oldest first, at most `limit`. */
  ticks(fromMs: number, toMs: number, limit: number): Promise<FeedTick[]>;
  /** Live ticks, each once and in time order. */
  onTick(listener: (tick: FeedTick) => void): () => void;
}

/** The single-process feed: the engine running here publishes, and its ticks are the live ones. */
export function engineTickFeed(engine: FeedEngine, store: FeedStore): TickFeed {
  return {
    def: engine.def,
    latest: async () => engine.latest(),
    ticks: (fromMs, toMs, limit) => store.ticks(engine.symbol, fromMs, toMs, limit),
    onTick: (listener) => engine.onTick(listener),
  };
}

const CATCH_UP_PAGE = 1_000;

/**
 * A replica's view of a feed written by whichever replica is elected: a `feed_tick` notification
 * (or a LISTEN reconnect, after which notifications may have been lost) makes it read every stored
 * tick after the last one it passed on, so live listeners get each tick once, in order, on every
 * replica, the writer included.
 */
export class SharedTickFeed implements TickFeed {
  private readonly listeners = new Set<(tick: FeedTick) => void>();
  private lastTs = -1;
  private reading: Promise<void> = Promise.resolve();
  private unsubscribe: (() => void) | undefined;

  constructor(
    readonly def: FeedDef,
    private readonly store: FeedStore,
  ) {}

  async start(listener: PgListener): Promise<void> {
    this.lastTs = (await this.store.lastTick(this.def.symbol))?.timestamp ?? -1;
    this.unsubscribe = await listener.subscribe(
      FEED_TICK_CHANNEL,
      (payload) => {
        if (noticeFeed(payload) === this.def.symbol) this.catchUp();
      },
      () => this.catchUp(),
    );
    // A tick stored between reading lastTs and LISTEN taking effect would otherwise wait for the next one.
    this.catchUp();
  }

  stop(): void {
    this.unsubscribe?.();
  }

  latest(): Promise<FeedTick | undefined> {
    return this.store.lastTick(this.def.symbol);
  }

  ticks(fromMs: number, toMs: number, limit: number): Promise<FeedTick[]> {
    return this.store.ticks(this.def.symbol, fromMs, toMs, limit);
  }

  onTick(listener: (tick: FeedTick) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Read and pass on everything after the last tick passed on; one read at a time. */
  private catchUp(): void {
    this.reading = this.reading.then(async () => {
      try {
        for (;;) {
          const fresh = await this.store.ticks(
            this.def.symbol,
            this.lastTs + 1,
            Number.MAX_SAFE_INTEGER,
            CATCH_UP_PAGE,
          );
          for (const tick of fresh) {
            this.lastTs = tick.timestamp;
            for (const l of this.listeners) l(tick);
          }
          if (fresh.length < CATCH_UP_PAGE) return;
        }
      } catch {
        // The next notification or reconnect reads again from the same point.
      }
    });
  }
}

function noticeFeed(payload: string): string | undefined {
  try {
    return (JSON.parse(payload) as Partial<FeedTickNotice>).feed;
  } catch {
    return undefined;
  }
}
