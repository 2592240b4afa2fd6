import { FencedOutError } from "../../db/leader.ts";
import type { Log } from "../../db/log.ts";
import type { AccountSource, LeaderboardNetwork, NetworkAccounts } from "./account-source.ts";
import { refreshAgent } from "./agent-refresh.ts";
import { type Board, BoardBuilder } from "./board.ts";
import { DexLists } from "./dex-list.ts";
import { compressBoth, gzipQuick } from "./encodings.ts";
import type { AgentRow, AgentStore } from "./store.ts";

interface RefresherOptions {
  store: AgentStore;
  source: AccountSource;
  networks: readonly LeaderboardNetwork[];
  /** Time between the starts of refresh cycles (LEADERBOARD_REFRESH_S, 45 s). */
  intervalMs: number;
  /** Agents queried at once per network; the exchange client's weight budget paces them further. */
  concurrency: number;
  /** One agent's queries give up after this; it is marked stale and the others go on. */
  agentTimeoutMs: number;
  /** Delay between starting workers, so a cycle does not open with a burst. */
  staggerMs: number;
  /** False when refresh workers read the exchange: a cycle only rebuilds the boards from the store. */
  exchangeReads?: boolean;
  /** Called after a cycle published a network's board (replicas: tell the others to rebuild theirs). */
  announce?: (network: LeaderboardNetwork) => Promise<void>;
  /**
   * A board made less than this after the previous one (a burst of registrations or refresh results)
   * gets its smaller compressed copies only once it has stood this long unchanged (default 300 ms).
   */
  settleMs?: number;
  /** One line per refresh cycle that read the exchange (agents, failures, duration, behind schedule). */
  log?: Log;
  now?: () => number;
}

interface CycleReport {
  network: LeaderboardNetwork;
  agents: number;
  failed: number;
  durationMs: number;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** Bodies from this size on are also kept gzip- and brotli-compressed (a large board is ~8× smaller). */
const COMPRESS_FROM_BYTES = 1024;
const SETTLE_MS = 300;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Keeps one ranked board per network. A background cycle (every `intervalMs`, never overlapping)
 * re-reads each agent's account value and open positions, and its ledger when needed (`refreshAgent`);
 * boards follow the store by reading only the agents changed since their last read (`catchUp`), and
 * the board being served is only replaced by a complete new one, so readers never wait on the exchange.
 */
export class Refresher {
  private readonly boards = new Map<LeaderboardNetwork, Board>();
  private readonly builder = new BoardBuilder();
  /** Per network: where the next read of changes starts. */
  private readonly cursors = new Map<LeaderboardNetwork, string>();
  private readonly dexLists: DexLists;
  /** Boards made per network: one compressed late must not replace a newer one. */
  private readonly made = new Map<LeaderboardNetwork, number>();
  /** When each network's last board was made (performance.now()). */
  private readonly madeAt = new Map<LeaderboardNetwork, number>();
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<CycleReport[]> | undefined;
  /** A cycle was asked for while one ran (a new writer's first): run one more right after. */
  private cycleAgain = false;
  private stopped = false;
  /** Where refresh results are recorded; null on a replica that is not the elected writer. */
  private writes: AgentStore | null;
  /** Per network: a read of changes is running (and whether another is owed). */
  private readonly following = new Map<LeaderboardNetwork, { again: boolean; done: Promise<Board> }>();
  /** When a board was last brought up to date with the store (ms), or null. */
  lastRefreshAt: number | null = null;

  constructor(private readonly opts: RefresherOptions) {
    this.now = opts.now ?? Date.now;
    this.dexLists = new DexLists(opts.source, opts.agentTimeoutMs, this.now);
    this.writes = opts.store;
  }

  /**
   * Record refresh results in `store` (the elected writer's fenced store), or, with null, neither read
   * the exchange nor write: a cycle then only brings the boards up to date with what the writer stored.
   */
  setWriter(store: AgentStore | null): void {
    this.writes = store;
  }

  /** Refresh now (a newly elected writer): at once, or right after the cycle under way. */
  refreshNow(): void {
    if (!this.timer || this.stopped) return;
    if (this.running) this.cycleAgain = true;
    else this.cycle().catch(() => undefined);
  }

  /** The board being served (built from the stored last known values on first use). */
  async board(network: LeaderboardNetwork): Promise<Board> {
    return this.boards.get(network) ?? this.catchUp(network);
  }

  /** Rebuild a network's board from every stored agent (what `catchUp` does on first use). */
  async rebuild(network: LeaderboardNetwork): Promise<Board> {
    const snap = await this.opts.store.snapshot(network);
    const board = this.builder.build(snap.rows, network, this.now());
    this.cursors.set(network, snap.cursor);
    return this.serve(network, board);
  }

  /**
   * Bring `network`'s board up to date with the store, reading only the agents changed since the last
   * read: a registration or a refresh moves one row. Calls arriving during a read are folded into one
   * more; a read that changes nothing shown keeps the board served (its ETag and compressed copies).
   */
  catchUp(network: LeaderboardNetwork): Promise<Board> {
    const running = this.following.get(network);
    if (running) {
      running.again = true;
      return running.done;
    }
    const state = { again: false, done: Promise.resolve() as unknown as Promise<Board> };
    state.done = (async () => {
      try {
        let board = await this.readChanges(network);
        while (state.again && !this.stopped) {
          state.again = false;
          board = await this.readChanges(network);
        }
        return board;
      } finally {
        this.following.delete(network);
      }
    })();
    this.following.set(network, state);
    return state.done;
  }

  private async readChanges(network: LeaderboardNetwork): Promise<Board> {
    const cursor = this.cursors.get(network);
    const served = this.boards.get(network);
    if (cursor === undefined || !served) return this.rebuild(network);
    const changes = await this.opts.store.changesSince(network, cursor);
    this.cursors.set(network, changes.cursor);
    this.lastRefreshAt = this.now();
    const board = this.builder.apply(changes.rows, network, this.now());
    return board ? this.serve(network, board) : served;
  }

  /**
   * Serve `board` once a quick gzip copy is made (a large board is ~9× smaller compressed), then,
   * while it is still the board served, replace it by the smaller gzip and brotli copies off the
   * event loop. Those cost ten times the quick one (about 0.2 s of CPU for 10,000 agents), so a board
   * made in a burst of changes waits until it has stood `settleMs` unchanged: each change of the burst
   * costs one quick gzip, and only the board that stays is compressed the small way.
   */
  private async serve(network: LeaderboardNetwork, board: Board): Promise<Board> {
    const n = (this.made.get(network) ?? 0) + 1;
    this.made.set(network, n);
    const madeAt = performance.now();
    const previousAt = this.madeAt.get(network);
    this.madeAt.set(network, madeAt);
    this.lastRefreshAt = this.now();
    const current = () => n === this.made.get(network);
    if (board.body.length >= COMPRESS_FROM_BYTES) {
      try {
        board.gzip = await gzipQuick(board.body);
      } catch {
        // served uncompressed
      }
      const settleMs = this.opts.settleMs ?? SETTLE_MS;
      const inBurst = previousAt !== undefined && madeAt - previousAt < settleMs;
      board.compressed = (async () => {
        if (inBurst) await sleep(settleMs);
        if (!current() || this.stopped) return;
        try {
          const smaller = await compressBoth(board.body, "small");
          if (current()) Object.assign(board, smaller);
        } catch {
          // the quick copy stays
        }
      })();
    }
    if (!current()) return this.boards.get(network) ?? board;
    this.boards.set(network, board);
    return board;
  }

  /** Run one refresh cycle over every network (joins the running one if a cycle is under way). */
  cycle(): Promise<CycleReport[]> {
    if (!this.running) {
      const writes = this.writes;
      // A cycle's reads are foreground reads of this process: the board is what users read. As
      // background reads they queued behind other processes' scans (hl up's weight broker) and timed out.
      this.running = Promise.all(this.opts.networks.map((n) => this.refreshNetwork(n, writes))).finally(
        () => {
          this.running = undefined;
          if (this.cycleAgain && !this.stopped) {
            this.cycleAgain = false;
            this.cycle().catch(() => undefined);
          }
        },
      );
    }
    return this.running;
  }

  /** Cycles now and every `intervalMs`; while a long cycle runs, each tick publishes its progress. */
  start(): void {
    if (this.timer) return;
    this.stopped = false;
    const tick = () => {
      if (this.running) {
        for (const n of this.opts.networks) this.publish(n, this.writes).catch(() => undefined);
        return;
      }
      this.cycle().catch(() => undefined);
    };
    tick();
    this.timer = setInterval(tick, this.opts.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /** Bring a network's board up to date; the writer also tells the other replicas to read the changes. */
  private async publish(network: LeaderboardNetwork, writes: AgentStore | null): Promise<void> {
    await this.catchUp(network);
    if (writes) await this.opts.announce?.(network);
  }

  private async refreshNetwork(network: LeaderboardNetwork, writes: AgentStore | null): Promise<CycleReport> {
    const started = this.now();
    const reads = (this.opts.exchangeReads ?? true) && writes !== null;
    if (!reads) {
      // Nothing to read from the exchange here: only follow what the writer (or workers) stored.
      await this.publish(network, null);
      return {
        network,
        agents: (await this.board(network)).total,
        failed: 0,
        durationMs: this.now() - started,
      };
    }
    const agents = await this.opts.store.list(network);
    const failed = agents.length > 0 ? await this.refreshAgents(network, agents, writes) : 0;
    await this.publish(network, writes);
    const report = { network, agents: agents.length, failed, durationMs: this.now() - started };
    if (agents.length > 0)
      this.opts.log?.info(
        {
          event: "refresh_cycle",
          network,
          agents: report.agents,
          failed,
          duration_ms: report.durationMs,
          behind_schedule: report.durationMs > this.opts.intervalMs,
        },
        `leaderboard: refreshed ${report.agents} ${network} agents (${failed} failed) in ${report.durationMs} ms`,
      );
    return report;
  }

  private async refreshAgents(
    network: LeaderboardNetwork,
    agents: AgentRow[],
    writes: AgentStore,
  ): Promise<number> {
    const accounts = this.opts.source(network);
    let next = 0;
    let failed = 0;
    let deposed = false;
    const worker = async (k: number) => {
      await sleep(k * this.opts.staggerMs);
      while (!this.stopped && !deposed && next < agents.length) {
        const agent = agents[next++]!;
        try {
          if (!(await this.refreshAgent(network, accounts, agent, writes))) failed++;
        } catch (err) {
          // Another replica writes now: this cycle's remaining results are not ours to record.
          if (!(err instanceof FencedOutError)) throw err;
          deposed = true;
        }
      }
    };
    const workers = Math.max(1, Math.min(this.opts.concurrency, agents.length));
    await Promise.all(Array.from({ length: workers }, (_, k) => worker(k)));
    return failed;
  }

  /** Refresh one agent; false when the exchange failed it. Throws FencedOutError once deposed. */
  private async refreshAgent(
    network: LeaderboardNetwork,
    accounts: NetworkAccounts,
    agent: AgentRow,
    writes: AgentStore,
  ): Promise<boolean> {
    let v: Awaited<ReturnType<typeof refreshAgent>>;
    try {
      v = await withTimeout(
        refreshAgent(agent, accounts, () => this.dexLists.get(network), this.now()),
        this.opts.agentTimeoutMs,
      );
    } catch (err) {
      // Stopping, its reads are given up: that says nothing of the agent, left as it was.
      if (this.stopped) return true;
      await writes.recordFailure(network, agent.address, message(err));
      return false;
    }
    await writes.recordSuccess(network, agent.address, { ...v, at: this.now() });
    return true;
  }
}
