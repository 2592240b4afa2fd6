import { LeaderElection } from "../../db/leader.ts";
import type { Log } from "../../db/log.ts";
import { PgListener } from "../../db/notify.ts";
import type { HealthSource } from "../../http/health.ts";
import { LEADERBOARD_NETWORKS } from "./account-source.ts";
import { BOARD_CHANNEL, type BoardChange, type PostgresAgentStore } from "./pg-store.ts";
import type { Refresher } from "./refresher.ts";

/** What a leaderboard replica on Postgres runs besides serving: its campaign and its LISTEN. */
interface ReplicaCoordination {
  /** Whether this replica is the elected writer now. */
  writing(): boolean;
  /** Writer or follower, its term, and since when (the election's own report). */
  election: HealthSource;
  close(): Promise<void>;
}

/**
 * Make `refresher` one replica of many on `store`'s database. The replica elected
 * `leaderboard:schedule` refreshes the agents, writing through its term's fence, and starts a cycle
 * as soon as it is elected; every other replica's cycles only read what changed in the store. Each
 * replica also reads the changes as soon as another one announces a registration or a refresh on
 * BOARD_CHANNEL, and after its LISTEN connection came back (a notification may have been missed: the
 * read covers every change since the last one, whatever was announced).
 */
export function coordinateReplicas(
  store: PostgresAgentStore,
  refresher: Refresher,
  opts: { url: string; holder?: string; log: Log },
): ReplicaCoordination {
  // Until elected, a replica neither reads the exchange for refreshes nor writes their results.
  refresher.setWriter(null);
  const election = new LeaderElection({
    connectionString: opts.url,
    name: "leaderboard:schedule",
    holder: opts.holder,
    log: opts.log,
    health: store.health,
    onElected(fence) {
      refresher.setWriter(store.fenced(fence));
      refresher.refreshNow();
    },
    onDeposed() {
      refresher.setWriter(null);
    },
  });
  const listener = new PgListener({ connectionString: opts.url, log: opts.log, health: store.health });
  const catchUpAll = () => {
    for (const n of LEADERBOARD_NETWORKS) refresher.catchUp(n).catch(() => undefined);
  };
  void listener.subscribe(
    BOARD_CHANNEL,
    (payload) => {
      const change = boardChange(payload);
      if (change && change.origin !== store.origin) refresher.catchUp(change.network).catch(() => undefined);
    },
    catchUpAll,
  );
  let closed = false;
  // Both wait for the schema (a replica started before Postgres retries until it is reachable).
  void store.ready
    .then(async () => {
      if (closed) return;
      await election.start();
      listener.keepConnected(); // reads every board's changes once connected, and after each reconnect
    })
    // A store that never became ready fails the service's start, which reports it.
    .catch(() => undefined);
  return {
    writing: () => election.current !== undefined,
    election,
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
