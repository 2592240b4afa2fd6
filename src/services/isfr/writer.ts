import { LeaderElection } from "../../db/leader.ts";
import type { SharedDb } from "../../db/shared.ts";
import { inBackground } from "../../exchange/background.ts";
import type { HealthSource } from "../../http/health.ts";
import type { IsfrIndexer } from "./indexer.ts";
import type { PgSnapshotStore } from "./pg-snapshot-store.ts";
import type { Snapshot, SnapshotStore } from "./snapshot-store.ts";

/** Who takes ISFR snapshots: the one process (SQLite), or the replica elected writer (Postgres). */
export interface IsfrWriter {
  /** Take one snapshot now; overlapping calls share one. Refused on a replica that is not the writer. */
  snapshot(): Promise<Snapshot>;
  /** Snapshot every `intervalMs` for as long as this process is (or whenever it becomes) the writer. */
  startSchedule(): void;
  /** On replicas: which replica writes, for /health. */
  health?: HealthSource;
  close(): Promise<void>;
}

/** Asked for a snapshot, a replica that is not the elected writer refuses. */
export class NotWriterError extends Error {
  constructor() {
    super("this replica is not the elected ISFR writer");
    this.name = "NotWriterError";
  }
}

interface WriterHooks {
  intervalMs: number;
  onSnapshot(snap: Snapshot): void;
  onError(err: unknown): void;
}

/** One snapshot at a time: a slow source must not pile up overlapping reads. */
function serialized(take: () => Promise<Snapshot>): () => Promise<Snapshot> {
  let inFlight: Promise<Snapshot> | undefined;
  return () => {
    inFlight ??= take().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
}

/** The single process is the writer: the first snapshot at once, then one per interval. */
export function localWriter(indexer: IsfrIndexer, hooks: WriterHooks): IsfrWriter {
  let timer: NodeJS.Timeout | undefined;
  let last: Promise<unknown> = Promise.resolve();
  const snapshot = serialized(async () => {
    const snap = await indexer.snapshot();
    hooks.onSnapshot(snap);
    return snap;
  });
  // A scheduled snapshot has no reader waiting: its reads queue behind theirs (exchange/background.ts).
  const run = () => {
    last = inBackground(snapshot).catch(hooks.onError);
  };
  return {
    snapshot,
    startSchedule() {
      if (timer) return;
      run();
      timer = setInterval(run, hooks.intervalMs);
      timer.unref();
    },
    async close() {
      if (timer) clearInterval(timer);
      await last;
    },
  };
}

/**
 * Replicas on Postgres: the replica elected `isfr:snapshots` writes, through a fenced store. A new
 * writer keeps the cadence of the stored snapshots (the next one is due an interval after the
 * latest), so a failover neither skips a snapshot nor takes an extra one.
 */
export function electedWriter(
  shared: SharedDb,
  store: PgSnapshotStore,
  makeIndexer: (store: SnapshotStore) => IsfrIndexer,
  now: () => number,
  hooks: WriterHooks & { log: (line: string) => void },
): IsfrWriter {
  let indexer: IsfrIndexer | undefined;
  let scheduled = false;
  let timer: NodeJS.Timeout | undefined;
  let last: Promise<unknown> = Promise.resolve();

  const snapshot = serialized(async () => {
    await ready;
    if (!indexer) throw new NotWriterError();
    const snap = await indexer.snapshot();
    hooks.onSnapshot(snap);
    return snap;
  });
  // A scheduled snapshot has no reader waiting: its reads queue behind theirs (exchange/background.ts).
  const run = () => {
    last = inBackground(snapshot).catch(hooks.onError);
  };
  const stopTimer = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  };
  const plan = async () => {
    stopTimer();
    const latest = await store.latest();
    const wait = latest ? Math.max(0, latest.tMs + hooks.intervalMs - now()) : 0;
    const tick = () => {
      run();
      timer = setTimeout(tick, hooks.intervalMs);
      timer.unref();
    };
    timer = setTimeout(tick, wait);
    timer.unref();
  };

  const election = new LeaderElection({
    connectionString: shared.url,
    name: "isfr:snapshots",
    holder: shared.replica,
    leaseMs: shared.leaseMs,
    log: hooks.log,
    async onElected(fence) {
      indexer = makeIndexer(store.fenced(fence));
      if (scheduled) await plan();
    },
    onDeposed() {
      stopTimer();
      indexer = undefined;
    },
  });
  const ready = election.start();

  return {
    snapshot,
    health: election,
    startSchedule() {
      if (scheduled) return;
      scheduled = true;
      void ready.then(() => (indexer ? plan() : undefined)).catch(hooks.onError);
    },
    async close() {
      await ready;
      await election.stop();
      await last;
    },
  };
}
