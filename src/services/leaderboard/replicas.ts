import { LeaderElection } from "../../db/leader.ts";
import { PgListener } from "../../db/notify.ts";
import { LEADERBOARD_NETWORKS } from "./account-source.ts";
import { BOARD_CHANNEL, type BoardChange, type PostgresAgentStore } from "./pg-store.ts";
import type { Refresher } from "./refresher.ts";

/** What a leaderboard replica on Postgres runs besides serving: its campaign and its LISTEN. */
export interface ReplicaCoordination {
  /** Whether this replica is the elected writer now. */
  writing(): boolean;
  close(): Promise<void>;
}

/**
 * Make `refresher` one replica of many on `store`'s database. The replica elected
 * `leaderboard:schedule` refreshes the agents, writing through its term's fence; every other replica's
 * cycles only rebuild its boards from the store. Each replica also rebuilds a board as soon as another
 * one announces a registration or a refresh on BOARD_CHANNEL, and everything after its LISTEN
 * connection was lost (a notification may have been missed meanwhile).
 */
export function coordinateReplicas(
  store: PostgresAgentStore,
  refresher: Refresher,
  opts: { url: string; holder?: string; log: (line: string) => void },
): ReplicaCoordination {
  // Until elected, a replica neither reads the exchange for refreshes nor writes their results.
  refresher.setWriter(null);
  const election = new LeaderElection({
    connectionString: opts.url,
    name: "leaderboard:schedule",
    holder: opts.holder,
    log: opts.log,
    onElected(fence) {
      refresher.setWriter(store.fenced(fence));
    },
    onDeposed() {
      refresher.setWriter(null);
    },
  });
  const listener = new PgListener({ connectionString: opts.url, log: opts.log });
  const rebuildAll = () => {
    for (const n of LEADERBOARD_NETWORKS) refresher.changed(n).catch(() => undefined);
  };
  void listener.subscribe(
    BOARD_CHANNEL,
    (payload) => {
      const change = boardChange(payload);
      if (change && change.origin !== store.origin) refresher.changed(change.network).catch(() => undefined);
    },
    rebuildAll,
  );
  let closed = false;
  // Both wait for the schema (a replica started before Postgres retries until it is reachable).
  void store.ready
    .then(async () => {
      if (closed) return;
      await election.start();
      listener.keepConnected(); // rebuilds every board once connected, and after each reconnect
    })
    .catch((err: unknown) =>
      opts.log(`leaderboard: replica coordination: ${err instanceof Error ? err.message : String(err)}`),
    );
  return {
    writing: () => election.current !== undefined,
    async close() {
      closed = true;
      await election.stop();
      await listener.close();
    },
  };
}

function boardChange(payload: string): BoardChange | undefined {
  try {
    const change = JSON.parse(payload) as Partial<BoardChange>;
    const network = LEADERBOARD_NETWORKS.find((n) => n === change.network);
    return network && typeof change.origin === "string" ? { network, origin: change.origin } : undefined;
  } catch {
    return undefined;
  }
}
