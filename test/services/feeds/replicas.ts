import type { SharedDb } from "../../../src/db/shared.ts";
import { FEED_NAMES, type FeedName } from "../../../src/services/feeds/profiles.ts";
import {
  type FeedsServerOptions,
  type RunningFeeds,
  startFeeds,
} from "../../../src/services/feeds/server.ts";
import { migrated, replicaDb } from "../../support/replicas.ts";
import { type RoundRobin, startRoundRobin } from "../../support/round-robin.ts";

export interface FeedReplicas extends RunningFeeds {
  replicas: RunningFeeds[];
  dbs: SharedDb[];
  /** Stop replica `i` as a crash would look to its peers: servers gone, connections dropped. */
  kill(i: number): Promise<void>;
}

/**
 * `count` replicas of the feeds on one Postgres database, each origin and the proxy behind a
 * round-robin balancer: the URLs a client sees are the balancer's, and `engines` are those of
 * whichever replica writes each feed now (the first started, until it is stopped).
 */
export async function startFeedReplicas(
  url: string,
  opts: Omit<FeedsServerOptions, "shared" | "dbPath">,
  count = 2,
  leaseMs?: number,
): Promise<FeedReplicas> {
  await migrated(url);
  const dbs: SharedDb[] = [];
  const replicas: RunningFeeds[] = [];
  for (let i = 0; i < count; i++) {
    const db = await replicaDb(url, i, leaseMs);
    dbs.push(db);
    replicas.push(await startFeeds({ ...opts, dbPath: "", shared: db, log: () => undefined }));
  }
  const balancers: RoundRobin[] = [];
  const origins: Partial<Record<FeedName, string>> = {};
  for (const name of FEED_NAMES) {
    if (!replicas[0]!.origins[name]) continue;
    const lb = await startRoundRobin(replicas.map((r) => r.origins[name]!));
    balancers.push(lb);
    origins[name] = lb.url;
  }
  let proxyUrl: string | undefined;
  if (replicas[0]!.proxyUrl) {
    const lb = await startRoundRobin(replicas.map((r) => r.proxyUrl!));
    balancers.push(lb);
    proxyUrl = lb.url;
  }
  const alive = replicas.map(() => true);
  const stop = async (i: number) => {
    if (!alive[i]) return;
    alive[i] = false;
    await replicas[i]!.close();
    await dbs[i]!.close();
  };
  return {
    origins,
    proxyUrl,
    replicas,
    dbs,
    get engines() {
      return replicas.flatMap((r, i) => (alive[i] ? r.engines : []));
    },
    kill: stop,
    async close() {
      for (const lb of balancers) await lb.close();
      for (let i = 0; i < replicas.length; i++) await stop(i);
    },
  };
}
