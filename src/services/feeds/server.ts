import { listen } from "../../http/service.ts";
import { FeedEngine } from "./engine.ts";
import { createFeedOrigin } from "./origin.ts";
import { FEEDS, type FeedName, feedPortOffset } from "./profiles.ts";
import { createFeedsProxy } from "./proxy.ts";
import type { FundingSource } from "./source.ts";
import { FeedStore } from "./store.ts";

export interface FeedsServerOptions {
  /** Needed when any feed runs here (a proxy alone reads no funding). */
  source?: FundingSource;
  /** SQLite file of settled hours and ticks (":memory:" in tests). */
  dbPath: string;
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
  log?: (line: string) => void;
}

export interface RunningFeeds {
  /** Base URL of each local feed origin. */
  origins: Partial<Record<FeedName, string>>;
  proxyUrl: string | undefined;
  engines: FeedEngine[];
  close(): Promise<void>;
}

/** Start the feed engines, their origins and (optionally) the proxy; polls until closed. */
export async function startFeeds(opts: FeedsServerOptions): Promise<RunningFeeds> {
  const host = opts.host ?? "127.0.0.1";
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  if (opts.feeds.length > 0 && !opts.source) throw new Error("startFeeds: feeds need a funding source");
  const store = opts.feeds.length > 0 ? new FeedStore(opts.dbPath) : undefined;
  const engines: FeedEngine[] = [];
  const closers: (() => Promise<void>)[] = [];
  const origins: Partial<Record<FeedName, string>> = {};
  let stopped = false;

  try {
    for (const name of opts.feeds) {
      const engine = new FeedEngine(FEEDS[name], store!, opts.source!, {
        inceptionMs: opts.inceptionMs,
        maxSilenceMs: opts.maxSilenceMs,
        historyRetryMs: opts.historyRetryMs,
      });
      await engine.start();
      await engine.poll();
      engines.push(engine);
      const origin = createFeedOrigin(engine, store!, { heartbeatMs: opts.heartbeatMs });
      const port =
        opts.originPort !== undefined && opts.feeds.length === 1
          ? opts.originPort
          : opts.basePort === 0
            ? 0
            : opts.basePort + feedPortOffset(name);
      const bound = await listen(origin.app, port, host);
      origins[name] = `http://${host}:${bound}`;
      closers.push(() => origin.app.close());
      pollLoop(engine, opts.pollMs ?? 5_000, () => stopped, log);
    }

    let proxyUrl: string | undefined;
    if (opts.proxy) {
      const upstreams = {} as Record<FeedName, string>;
      for (const name of Object.keys(FEEDS) as FeedName[]) {
        const url =
          opts.upstreams?.[name] ?? origins[name] ?? `http://${host}:${opts.basePort + feedPortOffset(name)}`;
        upstreams[name] = url;
      }
      const proxy = createFeedsProxy({ upstreams, heartbeatMs: opts.heartbeatMs });
      const bound = await listen(proxy.app, opts.basePort, host);
      proxyUrl = `http://${host}:${bound}`;
      closers.unshift(() => proxy.app.close());
    }

    return {
      origins,
      proxyUrl,
      engines,
      async close() {
        stopped = true;
        for (const c of closers) await c();
        store?.close();
      },
    };
  } catch (err) {
    stopped = true;
    for (const c of closers) await c();
    store?.close();
    throw err;
  }
}

/** Poll one engine forever (until stopped); a failed poll is logged once per distinct message and retried. */
function pollLoop(
  engine: FeedEngine,
  pollMs: number,
  stopped: () => boolean,
  log: (line: string) => void,
): void {
  let lastError = "";
  const step = async () => {
    if (stopped()) return;
    try {
      await engine.poll();
      lastError = "";
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (message !== lastError) log(`feeds: ${engine.symbol} poll failed: ${message}`);
      lastError = message;
    }
    if (!stopped()) setTimeout(step, pollMs).unref();
  };
  setTimeout(step, pollMs).unref();
}
