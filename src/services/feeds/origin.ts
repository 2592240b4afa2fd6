import { z } from "zod";
import { ServiceHealth } from "../../http/health.ts";
import { json, TAKEN_OVER } from "../../http/reply.ts";
import { createService, HttpError, type Service } from "../../http/service.ts";
import { lastEventId, type OrderedEvent, SseHub, sseFrame } from "../../http/sse.ts";
import type { TickFeed } from "./live.ts";
import type { FeedTick, HistoryPage } from "./tick.ts";

const HISTORY_DEFAULT_LIMIT = 1_000;
const HISTORY_MAX_LIMIT = 5_000;

const historyQuery = z.object({
  from: z.coerce.number().int().min(0).default(0),
  to: z.coerce.number().int().min(0).default(Number.MAX_SAFE_INTEGER),
  limit: z.coerce.number().int().min(1).max(HISTORY_MAX_LIMIT).default(HISTORY_DEFAULT_LIMIT),
});

interface FeedOriginOptions {
  corsOrigin?: string;
  heartbeatMs?: number;
}

/** Parse history paging parameters; a bad value is a 400 naming it. */
function parseHistoryQuery(query: unknown): z.infer<typeof historyQuery> {
  const parsed = historyQuery.safeParse(query);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HttpError(400, `invalid ${issue?.path.join(".") || "query"}: ${issue?.message ?? "bad value"}`);
  }
  return parsed.data;
}

/** A tick as an ordered SSE event: its id is its timestamp, which is what Last-Event-ID resumes after. */
export function tickEvent(tick: FeedTick): OrderedEvent {
  return { id: tick.timestamp, frame: sseFrame(tick, "price", tick.timestamp) };
}

/** Most ticks replayed to one reconnecting client (about a day at one tick every 20 s). */
const MAX_REPLAY = 5_000;

/**
 * One feed's origin (interfaces.md D): health, latest tick, SSE stream of ticks (`event: price`,
 * first tick on connect, comment heartbeat; a reconnect with Last-Event-ID gets every tick after
 * it first), and the stored tick history.
 */
export function createFeedOrigin(
  feed: TickFeed,
  opts: FeedOriginOptions = {},
): Service & { hub: SseHub; health: ServiceHealth } {
  const corsOrigin = opts.corsOrigin ?? process.env.CORS_ORIGIN ?? "*";
  const symbol = feed.def.symbol;
  const service = createService({ name: `feed-${feed.def.name}`, corsOrigin });
  const { app } = service;
  const hub = new SseHub({
    heartbeatMs: opts.heartbeatMs ?? 15_000,
    headers: { "Access-Control-Allow-Origin": corsOrigin },
  });
  const unsubscribe = feed.onTick((tick) => hub.publish(tickEvent(tick)));
  app.onClose(() => {
    unsubscribe();
    hub.close();
  });

  const latest = async (): Promise<FeedTick> => {
    const tick = await feed.latest();
    if (!tick) throw new HttpError(503, `${symbol} has not published yet`);
    return tick;
  };

  const catchUp = async (after: number | undefined): Promise<OrderedEvent[]> => {
    if (after === undefined) {
      const tick = await feed.latest();
      return tick ? [tickEvent(tick)] : [];
    }
    const missed = await feed.ticks(after + 1, Number.MAX_SAFE_INTEGER, MAX_REPLAY);
    return missed.map(tickEvent);
  };

  const health = new ServiceHealth(async () => {
    const tick = await feed.latest();
    return {
      status: "ok",
      feed: symbol,
      last_tick_ms: tick?.timestamp ?? null,
      subscribers: hub.size,
    };
  });
  health.serve(app, ["/health", "/healthz"]);
  for (const path of ["/api/latest", "/latest"]) app.get(path, async () => json(await latest()));
  for (const path of ["/api/stream", "/stream"]) {
    app.get(path, (req) => {
      req.raw.on("close", () => req.res.end());
      const after = lastEventId(req.raw.headers["last-event-id"]);
      void hub.attachOrdered(req.res, () => catchUp(after));
      return TAKEN_OVER;
    });
  }
  for (const path of ["/api/history", "/history"]) {
    app.get(path, async (req) => {
      const q = parseHistoryQuery(req.queryObject);
      const ticks = await feed.ticks(q.from, q.to, q.limit + 1);
      const more = ticks.length > q.limit;
      const page = more ? ticks.slice(0, q.limit) : ticks;
      const last = page[page.length - 1];
      const body: HistoryPage = {
        feed: symbol,
        ticks: page,
        next_from: more && last ? last.timestamp + 1 : null,
      };
      return json(body);
    });
  }
  return { ...service, hub, health };
}
