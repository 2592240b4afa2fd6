import { FencedOutError } from "../../db/leader.ts";
import type { AccountSource, LeaderboardNetwork, NetworkAccounts } from "./account-source.ts";
import { refreshAgent } from "./agent-refresh.ts";
import { type Board, BoardBuilder } from "./board.ts";
import { DexLists } from "./dex-list.ts";
import { compressBoth } from "./encodings.ts";
import type { AgentRow, AgentStore } from "./store.ts";

export interface RefresherOptions {
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
  now?: () => number;
}

export interface CycleReport {
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

/** Boards smaller than this are rebuilt on every registration. */
const SMALL_BOARD = 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Keeps one ranked board per network. A background cycle (every `intervalMs`, never overlapping)
 * re-reads each agent's account value and open positions, and its ledger when needed (`refreshAgent`); the board being served is only
 * replaced by a complete new one, so readers never wait on the exchange.
 */
export class Refresher {
  private readonly boards = new Map<LeaderboardNetwork, Board>();
  private readonly builder = new BoardBuilder();
  private readonly lastBuild = new Map<LeaderboardNetwork, { at: number; ms: number }>();
  private readonly pending = new Map<LeaderboardNetwork, NodeJS.Timeout>();
  private readonly dexLists: DexLists;
  /** Builds started per network: a slow read finishing after a newer one must not replace its board. */
  private readonly builds = new Map<LeaderboardNetwork, number>();
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<CycleReport[]> | undefined;
  private stopped = false;
  /** Where refresh results are recorded; null on a replica that is not the elected writer. */
  private writes: AgentStore | null;
  /** Per network: a rebuild for another replica's change is running (and whether another is owed). */
  private readonly following = new Map<LeaderboardNetwork, { again: boolean }>();

  constructor(private readonly opts: RefresherOptions) {
    this.now = opts.now ?? Date.now;
    this.dexLists = new DexLists(opts.source, opts.agentTimeoutMs, this.now);
    this.writes = opts.store;
  }

  /**
   * Record refresh results in `store` (the elected writer's fenced store), or, with null, neither read
   * the exchange nor write: a cycle then only rebuilds the boards from what the writer stored.
   */
  setWriter(store: AgentStore | null): void {
    this.writes = store;
  }

  /** The board being served (built from the stored last known values on first use). */
  async board(network: LeaderboardNetwork): Promise<Board> {
    return this.boards.get(network) ?? this.rebuild(network);
  }

  /** Rebuild a network's board from the store now (to publish a cycle's results or progress). */
  async rebuild(network: LeaderboardNetwork): Promise<Board> {
    const timer = this.pending.get(network);
    if (timer) clearTimeout(timer);
    this.pending.delete(network);
    const build = (this.builds.get(network) ?? 0) + 1;
    this.builds.set(network, build);
    const rows = await this.opts.store.list(network);
    const started = performance.now();
    const board = this.builder.build(rows, network, this.now());
    if (build !== this.builds.get(network)) return this.boards.get(network) ?? board;
    this.boards.set(network, board);
    this.lastBuild.set(network, { at: performance.now(), ms: performance.now() - started });
    // Compressed once per build; until then the identity body is served.
    if (board.body.length >= COMPRESS_FROM_BYTES) {
      board.compressed = compressBoth(board.body).then(
        ({ gzip, brotli }) => {
          board.gzip = gzip;
          board.brotli = brotli;
        },
        () => undefined,
      );
    }
    return board;
  }

  /**
   * A new agent was registered: show it now on a small board. A large board is rebuilt at most at a
   * 5 % duty cycle (a burst of registrations coalesces into one rebuild), so registrations cannot
   * keep the event loop busy.
   */
  async agentAdded(network: LeaderboardNetwork): Promise<void> {
    const last = this.lastBuild.get(network);
    if (!last || (await this.board(network)).total < SMALL_BOARD) {
      await this.rebuild(network);
      return;
    }
    const waitMs = last.at + last.ms * 20 - performance.now();
    if (waitMs <= 0) await this.rebuild(network);
    else if (!this.pending.has(network)) {
      const timer = setTimeout(() => this.rebuild(network).catch(() => undefined), waitMs);
      timer.unref();
      this.pending.set(network, timer);
    }
  }

  /**
   * Another replica changed `network`'s agents: rebuild from the store. Changes arriving during a
   * rebuild are folded into one more; a rebuild that finds the same ranking keeps the board served
   * (its ETag and compressed copies stay valid).
   */
  async changed(network: LeaderboardNetwork): Promise<void> {
    // A large board is rebuilt within the registrations' duty cycle, however many replicas announce.
    if ((this.boards.get(network)?.total ?? 0) >= SMALL_BOARD) return this.agentAdded(network);
    const running = this.following.get(network);
    if (running) {
      running.again = true;
      return;
    }
    const state = { again: true };
    this.following.set(network, state);
    try {
      while (state.again && !this.stopped) {
        state.again = false;
        await this.rebuildIfChanged(network);
      }
    } finally {
      this.following.delete(network);
    }
  }

  private async rebuildIfChanged(network: LeaderboardNetwork): Promise<void> {
    const served = this.boards.get(network);
    if (!served) return; // never read here yet: the first read builds it from the store
    const rows = await this.opts.store.list(network);
    const fresh = this.builder.build(rows, network, this.now());
    const current = this.boards.get(network);
    const same =
      current !== undefined &&
      current.total === fresh.total &&
      current.entryJson.every((json, i) => json === fresh.entryJson[i]);
    if (!same) await this.rebuild(network);
  }

  /** Run one refresh cycle over every network (joins the running one if a cycle is under way). */
  cycle(): Promise<CycleReport[]> {
    if (!this.running) {
      const writes = this.writes;
      this.running = Promise.all(this.opts.networks.map((n) => this.refreshNetwork(n, writes))).finally(
        () => {
          this.running = undefined;
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
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /** Rebuild a network's board; the writer also tells the other replicas to rebuild theirs. */
  private async publish(network: LeaderboardNetwork, writes: AgentStore | null): Promise<void> {
    await this.rebuild(network);
    if (writes) await this.opts.announce?.(network);
  }

  private async refreshNetwork(network: LeaderboardNetwork, writes: AgentStore | null): Promise<CycleReport> {
    const started = this.now();
    const agents = await this.opts.store.list(network);
    const reads = (this.opts.exchangeReads ?? true) && writes !== null;
    const failed = reads && agents.length > 0 ? await this.refreshAgents(network, agents, writes) : 0;
    await this.publish(network, writes);
    return { network, agents: agents.length, failed, durationMs: this.now() - started };
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
      await writes.recordFailure(network, agent.address, message(err));
      return false;
    }
    await writes.recordSuccess(network, agent.address, { ...v, at: this.now() });
    return true;
  }
}
