import { LeaderElection } from "../../db/leader.ts";
import type { SharedDb } from "../../db/shared.ts";
import { type HealthSource, storeProbe } from "../../http/health.ts";
import { listen } from "../../http/service.ts";
import { FeedEngine, type FeedEngineOptions } from "./engine.ts";
import { engineTickFeed, SharedTickFeed, type TickFeed } from "./live.ts";
import { createFeedOrigin } from "./origin.ts";
import { PgFeedStore } from "./pg-store.ts";
import { FEEDS, type FeedDef, type FeedName, feedPortOffset } from "./profiles.ts";
import { createFeedsProxy } from "./proxy.ts";
import type { FundingSource } from "./source.ts";
import { type FeedStore, SqliteFeedStore } from "./store.ts";

export interface FeedsServerOptions {
  /** Needed when any feed runs here (a proxy alone reads no funding). */
  source?: FundingSource;
  /** SQLite file of settled hours and ticks (":memory:" in tests); unused with `shared`. */
  dbPath: string;
  /**
   * Postgres shared by replicas (DATABASE_URL): every replica serves every feed from it, and each
   * feed's engine runs only on the replica elected its writer.
   */
  shared?: SharedDb;
  /** Feeds to run here (default none when `proxyOnly`, else all four). */
  feeds: FeedName[];
  /** FEEDS_PORT: the proxy's port; feed origins listen on +1…+4. 0 = every port picked freely. */
  basePort: number;
  /** Port for a single feed's origin (overrides basePort + offset). */
  originPort?: number;
  host?: string;
  /** Serve the proxy (default true when several feeds run here). */
  proxy: boolean;
  /** Proxy upstream per feed; default the local origin of that feed. */
  upstreams?: Partial<Record<FeedName, string>>;
  pollMs?: number;
  inceptionMs?: number;
  maxSilenceMs?: number;
  historyRetryMs?: number;
  heartbeatMs?: number;
  /** The network the feeds read, reported by the proxy's /healthz. */
  network?: string;
  log?: (line: string) => void;
}

export interface RunningFeeds {
  /** Base URL of each local feed origin. */
  origins: Partial<Record<FeedName, string>>;
  proxyUrl: string | undefined;
  /** The engines publishing from this process now (with `shared`: the feeds this replica writes). */
  readonly engines: FeedEngine[];
  close(): Promise<void>;
}

/** One feed as run here: what its origin serves, and how to stop publishing. */
interface RunningFeed {
  feed: TickFeed;
  /** The feed's writer election, on replicas. */
  health?: HealthSource;
  engine(): FeedEngine | undefined;
  stop(): Promise<void>;
}

/** Start the feed engines, their origins and (optionally) the proxy; polls until closed. */
export async function startFeeds(opts: FeedsServerOptions): Promise<RunningFeeds> {
  const host = opts.host ?? "127.0.0.1";
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  if (opts.feeds.length > 0 && !opts.source) throw new Error("startFeeds: feeds need a funding source");
  const shared = opts.shared;
  const store: FeedStore | undefined =
    opts.feeds.length === 0
      ? undefined
      : shared
        ? new PgFeedStore(shared.pool)
        : new SqliteFeedStore(opts.dbPath);
  const engineOpts: FeedEngineOptions = {
    inceptionMs: opts.inceptionMs,
    maxSilenceMs: opts.maxSilenceMs,
    historyRetryMs: opts.historyRetryMs,
  };
  const running: RunningFeed[] = [];
  const closers: (() => Promise<void>)[] = [];
  const origins: Partial<Record<FeedName, string>> = {};

  const closeAll = async () => {
    for (const c of closers) await c();
    for (const r of running) await r.stop();
    await store?.close();
  };

  try {
    for (const name of opts.feeds) {
      const def = FEEDS[name];
      const pollMs = opts.pollMs ?? 5_000;
      const one =
        shared && store instanceof PgFeedStore
          ? await runElected(
              def,
              shared,
              store,
              (s) => new FeedEngine(def, s, opts.source!, engineOpts),
              pollMs,
              log,
            )
          : await runLocal(new FeedEngine(def, store!, opts.source!, engineOpts), store!, pollMs, log);
      running.push(one);
      const origin = createFeedOrigin(one.feed, { heartbeatMs: opts.heartbeatMs });
      if (one.health) origin.health.register(one.health);
      if (shared) origin.health.register(storeProbe(() => shared.pool.query("select 1")));
      const port =
        opts.originPort !== undefined && opts.feeds.length === 1
          ? opts.originPort
          : opts.basePort === 0
            ? 0
            : opts.basePort + feedPortOffset(name);
      const bound = await listen(origin.app, port, host);
      origins[name] = `http://${host}:${bound}`;
      closers.push(() => origin.app.close());
    }

    let proxyUrl: string | undefined;
    if (opts.proxy) {
      const upstreams = {} as Record<FeedName, string>;
      for (const name of Object.keys(FEEDS) as FeedName[]) {
        const url =
          opts.upstreams?.[name] ?? origins[name] ?? `http://${host}:${opts.basePort + feedPortOffset(name)}`;
        upstreams[name] = url;
      }
      const proxy = createFeedsProxy({
        upstreams,
        heartbeatMs: opts.heartbeatMs,
        ...(opts.network ? { network: opts.network } : {}),
      });
      const bound = await listen(proxy.app, opts.basePort, host);
      proxyUrl = `http://${host}:${bound}`;
      closers.unshift(() => proxy.app.close());
    }

    return {
      origins,
      proxyUrl,
      get engines() {
        return running.flatMap((r) => r.engine() ?? []);
      },
      close: closeAll,
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}

/** Single process: the engine starts now and this process is its only writer. */
async function runLocal(
  engine: FeedEngine,
  store: FeedStore,
  pollMs: number,
  log: (line: string) => void,
): Promise<RunningFeed> {
  await engine.start();
  await engine.poll();
  const stopPolling = pollLoop(engine, pollMs, log);
  return { feed: engineTickFeed(engine, store), engine: () => engine, stop: async () => stopPolling() };
}

/**
 * A replica: it serves the feed from Postgres (live ticks through LISTEN/NOTIFY) and campaigns to be
 * the feed's writer. Elected, it rebuilds the engine from the stored replay log (the previous writer
 * may have settled hours since) and polls; every write carries the term's fence.
 */
async function runElected(
  def: FeedDef,
  shared: SharedDb,
  store: PgFeedStore,
  makeEngine: (store: FeedStore) => FeedEngine,
  pollMs: number,
  log: (line: string) => void,
): Promise<RunningFeed> {
  const feed = new SharedTickFeed(def, store);
  await feed.start(shared.listener);
  let engine: FeedEngine | undefined;
  let stopPolling: (() => void) | undefined;
  const election = new LeaderElection({
    connectionString: shared.url,
    name: `feeds:${def.symbol}`,
    holder: shared.replica,
    leaseMs: shared.leaseMs,
    log,
    async onElected(fence) {
      const fresh = makeEngine(store.fenced(fence));
      await fresh.start();
      await fresh.poll();
      engine = fresh;
      stopPolling = pollLoop(fresh, pollMs, log);
    },
    onDeposed() {
      stopPolling?.();
      stopPolling = undefined;
      engine = undefined;
    },
  });
  await election.start();
  return {
    feed,
    health: election,
    engine: () => engine,
    async stop() {
      await election.stop();
      feed.stop();
    },
  };
}

/** Poll one engine until stopped; a failed poll is logged once per distinct message and retried. */
function pollLoop(engine: FeedEngine, pollMs: number, log: (line: string) => void): () => void {
  let lastError = "";
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const step = async () => {
    if (stopped) return;
    try {
      await engine.poll();
      lastError = "";
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (message !== lastError) log(`feeds: ${engine.symbol} poll failed: ${message}`);
      lastError = message;
    }
    if (!stopped) {
      timer = setTimeout(step, pollMs);
      timer.unref();
    }
  };
  timer = setTimeout(step, pollMs);
  timer.unref();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
