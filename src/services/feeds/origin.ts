import { z } from "zod";
import { createService, HttpError, type Service } from "../../http/service.ts";
import { SseHub, sseFrame } from "../../http/sse.ts";
import type { FeedEngine } from "./engine.ts";
import type { FeedStore } from "./store.ts";
import type { FeedTick, HistoryPage } from "./tick.ts";

export const HISTORY_DEFAULT_LIMIT = 1_000;
export const HISTORY_MAX_LIMIT = 5_000;

const historyQuery = z.object({
  from: z.coerce.number().int().min(0).default(0),
  to: z.coerce.number().int().min(0).default(Number.MAX_SAFE_INTEGER),
  limit: z.coerce.number().int().min(1).max(HISTORY_MAX_LIMIT).default(HISTORY_DEFAULT_LIMIT),
});

export interface FeedOriginOptions {
  corsOrigin?: string;
  heartbeatMs?: number;
}

/** Parse history paging parameters; a bad value is a 400 naming it. */
export function parseHistoryQuery(query: unknown): z.infer<typeof historyQuery> {
  const parsed = historyQuery.safeParse(query);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new HttpError(400, `invalid ${issue?.path.join(".") || "query"}: ${issue?.message ?? "bad value"}`);
  }
  return parsed.data;
}

/**
 * One feed's origin (interfaces.md D): health, latest tick, SSE stream of ticks (`event: price`,
 * first tick on connect, comment heartbeat), and the stored tick history.
 */
export function createFeedOrigin(
  engine: FeedEngine,
  store: FeedStore,
  opts: FeedOriginOptions = {},
): Service & { hub: SseHub } {
  const corsOrigin = opts.corsOrigin ?? process.env.CORS_ORIGIN ?? "*";
  const service = createService({ name: `feed-${engine.def.name}`, corsOrigin });
  const { app } = service;
  const hub = new SseHub({
    heartbeatMs: opts.heartbeatMs ?? 15_000,
    headers: { "Access-Control-Allow-Origin": corsOrigin },
  });
  const unsubscribe = engine.onTick((tick) => hub.broadcast(sseFrame(tick, "price")));
  app.addHook("onClose", async () => {
    unsubscribe();
    hub.close();
  });

  const latest = (): FeedTick => {
    const tick = engine.latest();
    if (!tick) throw new HttpError(503, `${engine.symbol} has not published yet`);
    return tick;
  };

  app.get("/healthz", async () => {
    const tick = engine.latest();
    return {
      status: "ok",
      feed: engine.symbol,
      last_tick_ms: tick?.timestamp ?? null,
      subscribers: hub.size,
    };
  });
  for (const path of ["/api/latest", "/latest"]) app.get(path, async () => latest());
  for (const path of ["/api/stream", "/stream"]) {
    app.get(path, (req, reply) => {
      reply.hijack();
      const tick = engine.latest();
      hub.attach(reply.raw, tick ? sseFrame(tick, "price") : undefined);
      req.raw.on("close", () => reply.raw.end());
    });
  }
  for (const path of ["/api/history", "/history"]) {
    app.get(path, async (req): Promise<HistoryPage> => {
      const q = parseHistoryQuery(req.query);
      const ticks = store.ticks(engine.symbol, q.from, q.to, q.limit + 1);
      const more = ticks.length > q.limit;
      const page = more ? ticks.slice(0, q.limit) : ticks;
      const last = page[page.length - 1];
      return { feed: engine.symbol, ticks: page, next_from: more && last ? last.timestamp + 1 : null };
    });
  }
  return { ...service, hub };
}
