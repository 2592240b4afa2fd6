import { Counter, Gauge } from "prom-client";
import type { Logger } from "../../core/log.ts";
import { asLog, type Log } from "../../db/log.ts";
import { StoreUnavailableError } from "../../db/store-health.ts";
import type { HttpApp } from "../../http/app.ts";
import { ServiceHealth, soleWriter } from "../../http/health.ts";
import { json, type Reply, send } from "../../http/reply.ts";
import { createService, HttpError } from "../../http/service.ts";
import { serveWebFolder } from "../../http/static.ts";
import {
  type AccountSource,
  LEADERBOARD_NETWORKS,
  type LeaderboardNetwork,
  NETWORK_CHOICES,
} from "./account-source.ts";
import { boardJson } from "./board.ts";
import type { LeaderboardConfig } from "./config.ts";
import { etagMatches, pickEncoding } from "./encodings.ts";
import { openAgentStore } from "./open-store.ts";
import { PgClientRateLimiter } from "./pg-rate-limit.ts";
import { PostgresAgentStore } from "./pg-store.ts";
import { ClientRateLimiter, type RateLimiter, rateLimitedClient } from "./rate-limit.ts";
import { Refresher } from "./refresher.ts";
import { parseRegistration, RegistrationError, register } from "./registration.ts";
import { coordinateReplicas } from "./replicas.ts";
import type { AgentStore } from "./store.ts";

export interface LeaderboardService {
  app: HttpApp;
  /** The service's structured log (elections, LISTEN, refresh cycles, store errors). */
  log: Logger;
  /** GET /health: sources registered here (store, election, refresh) add to it. */
  health: ServiceHealth;
  refresher: Refresher;
  store: AgentStore;
  /**
   * Start the background refresh (every LEADERBOARD_REFRESH_S, both networks); with DATABASE_URL,
   * on the replica elected `leaderboard:schedule`, the others following the shared store.
   */
  startRefresh(): void;
  /** Whether this process records refresh results: always on SQLite; on Postgres while elected. */
  writing(): boolean;
  /** Settles when the store can be used (Postgres: reached and migrated); rejects when it cannot. */
  ready: Promise<void>;
  close(): Promise<void>;
}

const BOARD_TYPE = "application/json; charset=utf-8";

function networkParam(raw: unknown): LeaderboardNetwork {
  if (raw === undefined || raw === "") return "testnet";
  if (typeof raw === "string" && (LEADERBOARD_NETWORKS as readonly string[]).includes(raw)) {
    return raw as LeaderboardNetwork;
  }
  throw new HttpError(400, `network must be ${NETWORK_CHOICES}`);
}

function headerValue(raw: string | string[] | undefined): string | undefined {
  return Array.isArray(raw) ? raw.join(",") : raw;
}

function countParam(raw: unknown, name: string, fallback: number): number {
  if (raw === undefined || raw === "") return fallback;
  if (typeof raw !== "string" || !/^\d+$/.test(raw))
    throw new HttpError(400, `${name} must be a non-negative integer`);
  return Number(raw);
}

export function createLeaderboardService(
  config: LeaderboardConfig,
  deps: {
    source: AccountSource;
    now?: () => number;
    store?: AgentStore;
    /** Where a Postgres store reads DATABASE_POOL_MAX and DATABASE_CONNECT_TIMEOUT_S (process.env). */
    env?: NodeJS.ProcessEnv;
    /** Notes such as a retry while Postgres is not reachable yet (stderr). */
    log?: (line: string) => void;
    /** Structured events (elections, outages, refresh cycles); default: JSON lines on stderr. */
    logger?: Log;
  },
): LeaderboardService {
  const now = deps.now ?? Date.now;
  const started = now();
  const log = deps.logger ?? asLog(deps.log, "leaderboard");
  const store = deps.store ?? openAgentStore(config, deps.env, log);
  // Replicas share the store in Postgres: they elect one writer and hear each other's changes.
  const shared = config.databaseUrl && store instanceof PostgresAgentStore ? store : undefined;
  const refresher = new Refresher({
    store,
    source: deps.source,
    networks: LEADERBOARD_NETWORKS,
    intervalMs: config.refreshIntervalMs,
    concurrency: config.concurrency,
    agentTimeoutMs: config.agentTimeoutMs,
    staggerMs: config.staggerMs,
    exchangeReads: !config.refreshByWorkers,
    announce: shared ? (network) => shared.announce(network) : undefined,
    log,
    now,
  });
  /** A write the store could not take: a logged 503 that names no server. */
  const unavailable = (err: unknown, what: string): HttpError | undefined => {
    if (!(err instanceof StoreUnavailableError) && !shared?.health.failed(err)) return undefined;
    log.warn({ event: "write_refused", what }, `store unavailable: ${what} refused`);
    return new HttpError(503, "store unavailable");
  };
  const limiter: RateLimiter = shared
    ? new PgClientRateLimiter(shared.pool, shared.ready, config.registerPerMinute, config.registerBurst, now)
    : new ClientRateLimiter(config.registerPerMinute, config.registerBurst, now);
  const trustedProxies = new Set(config.trustedProxies);
  const { app, metrics } = createService({ name: "leaderboard", corsOrigin: config.corsOrigin });
  const health = new ServiceHealth(() => ({ status: "ok", uptime_s: Math.floor((now() - started) / 1000) }));

  const registrations = new Counter({
    name: "leaderboard_registrations_total",
    help: "Registration attempts by outcome",
    labelNames: ["outcome"],
    registers: [metrics],
  });
  new Gauge({
    name: "leaderboard_agents",
    help: "Agents on the served board",
    labelNames: ["network", "stale"],
    registers: [metrics],
    async collect() {
      for (const n of LEADERBOARD_NETWORKS) {
        const entries = (await refresher.board(n)).entries;
        const stale = entries.filter((e) => e.stale).length;
        this.set({ network: n, stale: "true" }, stale);
        this.set({ network: n, stale: "false" }, entries.length - stale);
      }
    },
  });
  new Gauge({
    name: "leaderboard_board_age_seconds",
    help: "Seconds since the served board was built",
    labelNames: ["network"],
    registers: [metrics],
    async collect() {
      for (const n of LEADERBOARD_NETWORKS)
        this.set({ network: n }, (now() - (await refresher.board(n)).lastUpdated) / 1000);
    },
  });

  health.serve(app, ["/health"]);
  // On SQLite the one process is the writer and its store is a local file: reported ok.
  health.register(shared ? shared.health : { health: () => ({ store: "ok" }) });
  health.register({ health: () => ({ lastRefreshMs: refresher.lastRefreshAt }) });

  app.post("/api/register", async (req): Promise<Reply> => {
    try {
      // Validated first: a malformed request is a 400 and costs the client nothing.
      const request = parseRegistration(req.body);
      const client = rateLimitedClient(
        req.raw.socket.remoteAddress ?? "",
        headerValue(req.raw.headers["x-forwarded-for"]),
        trustedProxies,
      );
      const wait = client === null ? 0 : await limiter.take(client);
      if (wait > 0) {
        registrations.inc({ outcome: "rate_limited" });
        const refused = json({ error: `Too many registrations from this client; retry in ${wait} s` }, 429);
        refused.headers["retry-after"] = String(wait);
        return refused;
      }
      const result = await register(request, { store, source: deps.source, now });
      if (result.new) await refresher.catchUp(request.network).catch(() => undefined);
      registrations.inc({ outcome: result.new ? "new" : "existing" });
      return json(result);
    } catch (err) {
      if (err instanceof RegistrationError) {
        registrations.inc({ outcome: err.status === 400 ? "invalid" : "exchange_error" });
        throw new HttpError(err.status, err.message);
      }
      const refused = unavailable(err, "registration");
      if (refused) registrations.inc({ outcome: "store_unavailable" });
      throw refused ?? err;
    }
  });

  app.get("/api/leaderboard", async (req): Promise<Reply> => {
    const query = req.queryObject;
    const board = await refresher.board(networkParam(query.network)).catch((err: unknown) => {
      throw err instanceof StoreUnavailableError ? new HttpError(503, "store unavailable") : err;
    });
    // The last board read from the store, served while the store cannot be read.
    const stale: Record<string, string> =
      shared?.health.state === "down" ? { warning: '110 - "Response is Stale"' } : {};
    if (query.limit === undefined && query.offset === undefined) {
      // The full board: bytes built (and compressed) once per refresh, revalidated by ETag.
      const headers = { vary: "Accept-Encoding", etag: board.etag, "cache-control": "no-cache", ...stale };
      if (etagMatches(req.raw.headers["if-none-match"], board.etag))
        return { status: 304, headers, body: "" };
      const encoding = pickEncoding(req.raw.headers["accept-encoding"], {
        br: board.brotli !== undefined,
        gzip: board.gzip !== undefined,
      });
      const body = encoding === "br" ? board.brotli : encoding === "gzip" ? board.gzip : board.body;
      return send(body ?? board.body, BOARD_TYPE, {
        ...headers,
        ...(encoding === "identity" ? {} : { "content-encoding": encoding }),
      });
    }
    const offset = countParam(query.offset, "offset", 0);
    const limit = countParam(query.limit, "limit", board.total);
    return send(boardJson(board, offset, limit), BOARD_TYPE, stale);
  });

  serveWebFolder(app, "/", "leaderboard");

  const replicas =
    shared && config.databaseUrl
      ? coordinateReplicas(shared, refresher, {
          url: config.databaseUrl,
          holder: deps.env?.HL_REPLICA_NAME ?? process.env.HL_REPLICA_NAME,
          log,
        })
      : undefined;
  health.register(replicas?.election ?? soleWriter("leaderboard:schedule", started));

  return {
    app,
    log: app.log,
    health,
    refresher,
    store,
    startRefresh: () => refresher.start(),
    writing: () => replicas?.writing() ?? true,
    ready: shared?.ready ?? Promise.resolve(),
    async close() {
      await replicas?.close();
      await refresher.stop();
      await app.close();
      await store.close();
    },
  };
}
