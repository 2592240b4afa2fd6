import type { PointsConfig } from "../../../src/services/points/config.ts";
import { type RunningPoints, startPoints } from "../../../src/services/points/server.ts";
import { type RoundRobin, startRoundRobin } from "../../support/round-robin.ts";

/** What the acceptance tests use of a running points service: one process, or replicas seen as one. */
export type PointsDeployment = Pick<RunningPoints, "url" | "store" | "close">;

export interface PointsReplicas extends PointsDeployment {
  replicas: RunningPoints[];
  lb: RoundRobin;
}

/**
 * `count` points replicas on one Postgres database (`cfg.databaseUrl`) behind a round-robin
 * balancer; `store` is the first replica's (they share the database).
 */
export async function startPointsReplicas(
  cfg: PointsConfig,
  deps: Parameters<typeof startPoints>[1],
  count = 2,
): Promise<PointsReplicas> {
  const replicas: RunningPoints[] = [];
  for (let i = 0; i < count; i++) replicas.push(await startPoints(cfg, deps));
  const lb = await startRoundRobin(replicas.map((r) => r.url));
  return {
    url: lb.url,
    store: replicas[0]!.store,
    replicas,
    lb,
    async close() {
      await lb.close();
      for (const r of replicas) await r.close();
    },
  };
}
