import { LEADERBOARD_NETWORKS } from "../../../src/services/leaderboard/account-source.ts";
import type { Board } from "../../../src/services/leaderboard/board.ts";
import type { LeaderboardService } from "../../../src/services/leaderboard/service.ts";
import type { NewAgent } from "../../../src/services/leaderboard/store.ts";
import { type RoundRobin, startRoundRobin } from "../../support/round-robin.ts";

/** What the acceptance tests drive besides HTTP: one service, or a pair of replicas seen as one. */
export interface BoardControl {
  refresher: {
    cycle(): Promise<unknown>;
    rebuild(network: Board["network"]): Promise<Board>;
  };
  store: { insert(a: NewAgent): Promise<boolean> };
  startRefresh(): void;
}

export interface LeaderboardPair {
  svc: BoardControl;
  /** The balancer's URL. */
  base: string;
  lb: RoundRobin;
  /**
   * Resolves once every replica serves the same ranking, with every stored agent: what a reader
   * sees a few ms after a write elsewhere, through LISTEN/NOTIFY.
   */
  settled(): Promise<void>;
  close(): Promise<void>;
}

async function until(what: string, ok: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const start = Date.now();
  while (!(await ok())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Two leaderboard replicas on one Postgres database behind a round-robin balancer. A refresh cycle
 * runs on the elected writer; a registration lands on whichever replica the balancer picks.
 */
export async function startLeaderboardPair(
  replicas: LeaderboardService[],
  urls: string[],
): Promise<LeaderboardPair> {
  const lb = await startRoundRobin(urls);
  const store = replicas[0]!.store;
  const inserts: Promise<unknown>[] = [];
  const settled = async () => {
    await Promise.all(inserts);
    await until("every replica to serve the stored agents", async () => {
      for (const n of LEADERBOARD_NETWORKS) {
        const total = await store.count(n);
        const boards = await Promise.all(replicas.map((r) => r.refresher.board(n)));
        const ranking = boards[0]!.entryJson.join();
        if (boards.some((b) => b.total !== total || b.entryJson.join() !== ranking)) return false;
      }
      return true;
    });
  };
  const writer = async () => {
    let found: LeaderboardService | undefined;
    await until("an elected writer", async () => {
      found = replicas.find((r) => r.writing());
      return found !== undefined;
    });
    return found!;
  };
  const svc: BoardControl = {
    refresher: {
      async cycle() {
        const report = await (await writer()).refresher.cycle();
        await settled();
        return report;
      },
      async rebuild(network) {
        await Promise.all(inserts);
        await Promise.all(replicas.map((r) => r.refresher.rebuild(network)));
        await settled();
        const boards = await Promise.all(replicas.map((r) => r.refresher.board(network)));
        return {
          ...boards[0]!,
          compressed: Promise.all(boards.map((b) => b.compressed)).then(() => undefined),
        };
      },
    },
    store: {
      insert(a) {
        const inserted = store.insert(a);
        inserts.push(inserted);
        return inserted;
      },
    },
    startRefresh() {
      for (const r of replicas) r.startRefresh();
    },
  };
  return {
    svc,
    base: lb.url,
    lb,
    settled,
    async close() {
      await lb.close();
      for (const r of replicas) await r.close();
    },
  };
}
