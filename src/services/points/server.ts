import { LeaderElection } from "../../db/leader.ts";
import { asLog, type Log } from "../../db/log.ts";
import { StoreUnavailableError } from "../../db/store-health.ts";
import { type ServiceHealth, soleWriter } from "../../http/health.ts";
import { listen } from "../../http/service.ts";
import { BuilderFiles } from "./attribution.ts";
import type { PointsConfig } from "./config.ts";
import { FillHistory } from "./fill-history.ts";
import { createPointsApp } from "./http.ts";
import { localAgentWallets } from "./local-agents.ts";
import { MarkRecorder } from "./marks.ts";
import { openPointsStore } from "./open-store.ts";
import { PostgresPointsStore } from "./pg-store.ts";
import { type DayFiles, type FillSource, PointsService } from "./service.ts";
import type { PointsStore } from "./store.ts";

export interface RunningPoints {
  url: string;
  /** GET /health: a source registered here (the store's probe) adds to it. */
  health: ServiceHealth;
  service: PointsService;
  recorder: MarkRecorder;
  store: PointsStore;
  close(): Promise<void>;
}

/** Start the points service: mark recorder on the BTCSWP feed, builder files, and the HTTP API. */
export async function startPoints(
  cfg: PointsConfig,
  deps: {
    fills: FillSource;
    files?: DayFiles;
    store?: PointsStore;
    /** Where a Postgres store reads DATABASE_POOL_MAX and DATABASE_CONNECT_TIMEOUT_S (process.env). */
    env?: NodeJS.ProcessEnv;
    log?: (line: string) => void;
    /** Structured events (elections, outages, refused lookups); default: `log`'s lines. */
    logger?: Log;
  },
): Promise<RunningPoints> {
  const log = deps.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const logger = deps.logger ?? asLog(log);
  const store = deps.store ?? openPointsStore(cfg, deps.env, logger);
  if (store instanceof PostgresPointsStore) {
    // Postgres reached and migrated (retried while it is not up yet) before anything else starts.
    await store.ready.catch(async (err: unknown) => {
      await store.close();
      throw err;
    });
  }
  let lastError = "";
  const recorder = new MarkRecorder(store, {
    feedUrl: cfg.feedUrl,
    fromMs: cfg.programStartMs,
    onError: (err) => {
      const message = err instanceof Error ? err.message : String(err);
      if (message !== lastError)
        logger.warn(
          { event: "feed_error", feed: cfg.feedUrl, reason: message },
          `points: BTCSWP feed ${cfg.feedUrl}: ${message}`,
        );
      lastError = message;
    },
  });
  recorder.start();
  const files =
    deps.files ??
    new BuilderFiles({
      statsUrl: cfg.statsUrl,
      statsNetwork: cfg.statsNetwork,
      coin: cfg.coin,
      missingTtlMs: cfg.missingFileRetryMs,
    });
  const history = new FillHistory(store, cfg.coin);
  const service = new PointsService(cfg, { fills: deps.fills, files, marks: store, history, log: logger });
  let following = false;
  let follower: NodeJS.Timeout | undefined;
  const startFollowing = (writes: FillHistory) => {
    if (cfg.followMs <= 0 || follower) return;
    const follow = () => {
      if (following) return;
      following = true;
      service
        .followAll((user, err) => {
          if (err instanceof StoreUnavailableError) return; // the store logged its outage once
          const why = err instanceof Error ? err.message : String(err);
          logger.warn(
            { event: "sync_failed", wallet: user, reason: why },
            `points: fills of ${user}: ${why}`,
          );
        }, writes)
        .finally(() => {
          following = false;
        });
    };
    follower = setInterval(follow, cfg.followMs);
    follower.unref();
    follow(); // a newly elected writer syncs at once, not one period later
  };
  const stopFollowing = () => {
    clearInterval(follower);
    follower = undefined;
  };
  // On Postgres (replicas) the periodic sync of every known wallet runs on one elected replica, and
  // its writes carry the term's fence: once another replica took over, they are refused.
  const election =
    cfg.databaseUrl && cfg.followMs > 0 && store instanceof PostgresPointsStore
      ? new LeaderElection({
          connectionString: cfg.databaseUrl,
          name: "points:sync",
          holder: deps.env?.HL_REPLICA_NAME ?? process.env.HL_REPLICA_NAME,
          log: logger,
          health: store.health,
          onElected: (fence) => startFollowing(new FillHistory(store.fenced(fence), cfg.coin)),
          onDeposed: stopFollowing,
        })
      : undefined;
  if (election) void election.start();
  else startFollowing(history);
  const started = Date.now();
  const { app, health } = createPointsApp(service, {
    localAgents: () => (cfg.network ? localAgentWallets(cfg.localAgents ?? [], cfg.network) : []),
    health: [
      // On SQLite the one process is the writer and its store is a local file: reported ok.
      store instanceof PostgresPointsStore ? store.health : { health: () => ({ store: "ok" }) },
      election ?? soleWriter("points:sync", started),
      { health: () => ({ lastRefreshMs: service.lastFollowAt }) },
    ],
  });
  try {
    const port = await listen(app, cfg.port, cfg.host);
    return {
      url: `http://${cfg.host}:${port}`,
      health,
      service,
      recorder,
      store,
      async close() {
        await election?.stop();
        stopFollowing();
        recorder.close();
        await app.close();
        await store.close();
      },
    };
  } catch (err) {
    await election?.stop();
    stopFollowing();
    recorder.close();
    await store.close();
    throw err;
  }
}
