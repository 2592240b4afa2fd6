import type { AccountSource } from "./account-source.ts";
import { refreshAgent } from "./agent-refresh.ts";
import { DexLists } from "./dex-list.ts";
import type { Lease, RefreshQueue } from "./queue.ts";

export interface RefreshWorkerOptions {
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

export interface WorkerStats {
  refreshed: number;
  failed: number;
  /** Results dropped because the lease had run out (another worker may hold the agent now). */
  lost: number;
}

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
    await this.opts.queue.releaseAll();
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
      this.stats.failed++;
      written = await queue
        .fail(lease, err instanceof Error ? err.message : String(err), intervalMs)
        .catch(() => true);
    }
    if (!written) this.stats.lost++;
  }
}
