import type { AccountSource, LeaderboardNetwork } from "./account-source.ts";
import { refreshAgent } from "./agent-refresh.ts";
import { DexLists } from "./dex-list.ts";
import type { Lease, RefreshQueue } from "./queue.ts";

interface RefreshWorkerOptions {
  queue: RefreshQueue;
  /** The exchange, through this worker's own weight budget (and source address). */
  source: AccountSource;
  /** Agents refreshed at once. */
  concurrency: number;
  /** An agent is due again this long after its refresh (LEADERBOARD_REFRESH_S). */
  intervalMs: number;
  /** One agent's refresh gives up after this; must stay well inside the queue's lease. */
  agentTimeoutMs: number;
  /** Pause of an idle slot before asking the queue again. */
  idleMs?: number;
}

interface WorkerStats {
  refreshed: number;
  failed: number;
  /** Results dropped because the lease had run out (another worker may hold the agent now). */
  lost: number;
}

/** Results written within this long are announced to the service's replicas together. */
const ANNOUNCE_EVERY_MS = 250;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * One leaderboard refresh worker: `concurrency` slots, each claiming one due agent at a time from the
 * Postgres queue, refreshing it at the least weight (`refreshAgent`) and writing the result back.
 * Workers share nothing but the queue, so capacity grows with every worker (each with its own
 * request-weight budget and source address).
 */
export class RefreshWorker {
  readonly stats: WorkerStats = { refreshed: 0, failed: 0, lost: 0 };
  private readonly dexLists: DexLists;
  private running: Promise<unknown> | undefined;
  private stopped = false;
  /** Networks with results not announced yet, and the timer that will. */
  private readonly unannounced = new Map<LeaderboardNetwork, NodeJS.Timeout>();

  constructor(private readonly opts: RefreshWorkerOptions) {
    this.dexLists = new DexLists(opts.source, opts.agentTimeoutMs);
  }

  start(): void {
    if (this.running) return;
    this.stopped = false;
    this.running = Promise.all(Array.from({ length: Math.max(1, this.opts.concurrency) }, () => this.slot()));
  }

  /** Finish the agents in hand, then give back anything still held. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
    this.running = undefined;
    await Promise.all([...this.unannounced.keys()].map((n) => this.announce(n)));
    await this.opts.queue.releaseAll();
  }

  /**
   * A result was written: the service's replicas hear of it within ANNOUNCE_EVERY_MS (one
   * notification per network for all results written meanwhile) and read only the changed rows.
   */
  private written(network: LeaderboardNetwork): void {
    if (this.unannounced.has(network)) return;
    const timer = setTimeout(() => void this.announce(network), ANNOUNCE_EVERY_MS);
    timer.unref();
    this.unannounced.set(network, timer);
  }

  private async announce(network: LeaderboardNetwork): Promise<void> {
    clearTimeout(this.unannounced.get(network));
    this.unannounced.delete(network);
    // A lost announcement costs only time: the replicas read every change at their next cycle.
    await this.opts.queue.announce(network).catch(() => undefined);
  }

  private async slot(): Promise<void> {
    while (!this.stopped) {
      let leases: Lease[];
      try {
        leases = await this.opts.queue.claim(1);
      } catch {
        leases = []; // the database is unreachable for now: wait and ask again
      }
      if (leases.length === 0) {
        await sleep(this.opts.idleMs ?? 500);
        continue;
      }
      for (const lease of leases) await this.refresh(lease);
    }
  }

  private async refresh(lease: Lease): Promise<void> {
    const { agent } = lease;
    const { queue, intervalMs } = this.opts;
    let written: boolean;
    try {
      const accounts = this.opts.source(agent.network);
      const values = await withTimeout(
        refreshAgent(agent, accounts, () => this.dexLists.get(agent.network), Date.now()),
        this.opts.agentTimeoutMs,
      );
      written = await queue.complete(lease, values, intervalMs);
      if (written) this.stats.refreshed++;
    } catch (err) {
      // Stopping, its reads are given up: that says nothing of the agent, whose lease goes back as it
      // was at the stop (releaseAll), due at once for another worker.
      if (this.stopped) return;
      this.stats.failed++;
      written = await queue
        .fail(lease, err instanceof Error ? err.message : String(err), intervalMs)
        .catch(() => true);
    }
    if (written) this.written(agent.network);
    else this.stats.lost++;
  }
}
