import type { SharedDb } from "../../../src/db/shared.ts";
import { listen } from "../../../src/http/service.ts";
import type { IsfrConfig } from "../../../src/services/isfr/config.ts";
import {
  createIsfrService,
  type IsfrService,
  type IsfrServiceDeps,
} from "../../../src/services/isfr/service.ts";
import { NotWriterError } from "../../../src/services/isfr/writer.ts";
import { migrated, replicaDb } from "../../support/replicas.ts";
import { type RoundRobin, startRoundRobin } from "../../support/round-robin.ts";

export interface IsfrReplicas {
  /** The pair seen as one service: `snapshot()` asks whichever replica is the writer. */
  svc: IsfrService;
  /** The balancer's URL. */
  base: string;
  replicas: IsfrService[];
  /** Each replica's own URL. */
  urls: string[];
  lb: RoundRobin;
  kill(i: number): Promise<void>;
}

/** `count` ISFR replicas on one Postgres database behind a round-robin balancer. */
export async function startIsfrReplicas(
  url: string,
  config: IsfrConfig,
  deps: Omit<IsfrServiceDeps, "shared">,
  count = 2,
  leaseMs?: number,
): Promise<IsfrReplicas> {
  await migrated(url);
  const dbs: SharedDb[] = [];
  const replicas: IsfrService[] = [];
  const urls: string[] = [];
  for (let i = 0; i < count; i++) {
    const db = await replicaDb(url, i, leaseMs);
    dbs.push(db);
    const svc = createIsfrService(config, { ...deps, shared: db });
    replicas.push(svc);
    urls.push(`http://127.0.0.1:${await listen(svc.app, 0)}`);
  }
  const lb = await startRoundRobin(urls);
  const alive = replicas.map(() => true);
  const kill = async (i: number) => {
    if (!alive[i]) return;
    alive[i] = false;
    await replicas[i]!.close();
    await dbs[i]!.close();
  };
  const svc: IsfrService = {
    app: replicas[0]!.app,
    async snapshot() {
      for (const [i, r] of replicas.entries()) {
        if (!alive[i]) continue;
        try {
          return await r.snapshot();
        } catch (err) {
          if (!(err instanceof NotWriterError)) throw err;
        }
      }
      throw new NotWriterError();
    },
    startSnapshots() {
      for (const [i, r] of replicas.entries()) if (alive[i]) r.startSnapshots();
    },
    async close() {
      await lb.close();
      for (let i = 0; i < replicas.length; i++) await kill(i);
    },
  };
  return { svc, base: lb.url, replicas, urls, lb, kill };
}
