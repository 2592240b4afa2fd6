import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { json, type Reply, send, TAKEN_OVER } from "../../http/reply.ts";
import { createService, HttpError, type Service } from "../../http/service.ts";
import { lastEventId, type OrderedEvent, SseHub } from "../../http/sse.ts";
import { tickEvent } from "./origin.ts";
import { FEED_NAMES, type FeedName, isFeedName } from "./profiles.ts";
import { type SseSubscription, subscribeSse } from "./sse-client.ts";
import { type FeedTick, historyPageSchema, parseTickData } from "./tick.ts";

const WEB_DIR = join(dirname(fileURLToPath(import.meta.url)), "../../../web/feeds");
/** The chart library's standalone browser build (the package exports only its ES module, so go by its folder). */
const CHART_SCRIPT = join(
  dirname(createRequire(import.meta.url).resolve("lightweight-charts/package.json")),
  "dist/lightweight-charts.standalone.production.js",
);

interface FeedsProxyOptions {
  /** Origin base URL of each feed (local origins or remote feeds). */
  upstreams: Record<FeedName, string>;
  corsOrigin?: string;
  heartbeatMs?: number;
  /** Upstream request timeout (default 5 s). */
  timeoutMs?: number;
  /** The network whose funding the feeds read (shown on the page). */
  network?: string;
}

/** One upstream SSE subscription per feed, fanned out to any number of downstream clients. */
class UpstreamFeed {
  readonly hub: SseHub;
  last: FeedTick | undefined;
  private sub: SseSubscription | undefined;

  constructor(
    readonly url: string,
    hubOpts: ConstructorParameters<typeof SseHub>[0],
  ) {
    this.hub = new SseHub(hubOpts);
  }

  /** Subscribe upstream on first use; the subscription then lives as long as the proxy. */
  ensureSubscribed(): void {
    if (this.sub) return;
    this.sub = subscribeSse(`${this.url}/api/stream`, {
      onEvent: (event, data) => {
        const tick = event === "price" ? parseTickData(data) : null;
        if (!tick) return;
        this.last = tick;
        this.hub.publish(tickEvent(tick));
      },
    });
  }

  /** What a downstream client has not seen: the latest tick, or (reconnecting) every tick after its id. */
  async catchUp(after: number | undefined, timeoutMs: number): Promise<OrderedEvent[]> {
    if (after === undefined) return this.last ? [tickEvent(this.last)] : [];
    const res = await fetch(`${this.url}/api/history?from=${after + 1}&limit=5000`, {
      signal: AbortSignal.timeout(timeoutMs),
    });
    return historyPageSchema.parse(await res.json()).ticks.map(tickEvent);
  }

  close(): void {
    this.sub?.close();
    this.hub.close();
  }
}

/**
 * The same-origin proxy (interfaces.md D): `/api/feeds/<feed>/latest|stream|history` relayed to the
 * feed's origin, plus the feeds page at `/`.
 */
export function createFeedsProxy(opts: FeedsProxyOptions): Service {
  const corsOrigin = opts.corsOrigin ?? process.env.CORS_ORIGIN ?? "*";
  const service = createService({ name: "feeds-proxy", corsOrigin });
  const { app } = service;
  const timeoutMs = opts.timeoutMs ?? 5_000;
  const feeds = new Map<FeedName, UpstreamFeed>();
  for (const name of FEED_NAMES) {
    const url = opts.upstreams[name].replace(/\/+$/, "");
    feeds.set(
      name,
      new UpstreamFeed(url, {
        heartbeatMs: opts.heartbeatMs ?? 15_000,
        headers: { "Access-Control-Allow-Origin": corsOrigin },
      }),
    );
  }
  app.onClose(() => {
    for (const f of feeds.values()) f.close();
  });

  const feedOf = (raw: string): UpstreamFeed => {
    const name = raw.toLowerCase();
    const feed = isFeedName(name) ? feeds.get(name) : undefined;
    if (!feed) throw new HttpError(404, `Unknown feed: ${raw} (expected one of ${FEED_NAMES.join(", ")})`);
    return feed;
  };

  const relay = async (url: string): Promise<Reply> => {
    let res: Response;
    try {
      res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      throw new HttpError(
        502,
        `Feed upstream unreachable: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    return send(await res.text(), "application/json; charset=utf-8", {}, res.status);
  };

  // /api/feeds/<feed>/latest|history|stream
  app.get("/api/feeds/*", async (req) => {
    const [name = "", what, ...more] = req.rest.split("/");
    if (more.length > 0 || (what !== "latest" && what !== "history" && what !== "stream"))
      throw new HttpError(404, `Not found: GET ${req.path}`);
    const feed = feedOf(name);
    if (what === "latest") return relay(`${feed.url}/api/latest`);
    if (what === "history") {
      const url = req.raw.url ?? "";
      const search = url.includes("?") ? url.slice(url.indexOf("?")) : "";
      return relay(`${feed.url}/api/history${search}`);
    }
    feed.ensureSubscribed();
    req.raw.on("close", () => req.res.end());
    const after = lastEventId(req.raw.headers["last-event-id"]);
    void feed.hub.attachOrdered(req.res, () => feed.catchUp(after, timeoutMs));
    return TAKEN_OVER;
  });

  // Load balancers probe the proxy as they would an origin: ok only while every feed's origin is.
  const health = async (): Promise<Reply> => {
    const entries = await Promise.all(
      [...feeds].map(async ([name, feed]) => {
        try {
          const res = await fetch(`${feed.url}/healthz`, { signal: AbortSignal.timeout(timeoutMs) });
          const body = (await res.json()) as Record<string, unknown>;
          return [name, res.ok ? body : { status: "unhealthy", http_status: res.status }] as const;
        } catch (err) {
          return [
            name,
            { status: "unreachable", error: err instanceof Error ? err.message : String(err) },
          ] as const;
        }
      }),
    );
    const healthy = entries.every(([, h]) => h.status === "ok");
    return json(
      {
        status: healthy ? "ok" : "degraded",
        network: opts.network ?? null,
        feeds: Object.fromEntries(entries),
      },
      healthy ? 200 : 503,
    );
  };
  app.get("/health", health);
  app.get("/healthz", health);

  const page = (file: string, type: string) => async () => send(await readFile(file), type);
  app.get("/", page(join(WEB_DIR, "index.html"), "text/html; charset=utf-8"));
  app.get("/feeds.js", page(join(WEB_DIR, "feeds.js"), "text/javascript; charset=utf-8"));
  app.get("/vendor/lightweight-charts.js", page(CHART_SCRIPT, "text/javascript; charset=utf-8"));

  return service;
}
