import type { HttpApp } from "./app.ts";
import { json, type Reply } from "./reply.ts";

/**
 * A replica's part in one elected job: which lease, whether it holds it (`writer`) or not, the term
 * (the lease's fence token while it writes, else null) and since when (ms). A single process, with no
 * election, is the writer of its jobs.
 */
export interface WriterInfo {
  lease: string;
  role: "writer" | "follower";
  term: string | null;
  since: number;
}

/**
 * What one part of a service (its store, an election, a refresh loop) says about itself: the one
 * shape every service's health is built from.
 */
export interface HealthFacts {
  /** Whether the store answers; `down` makes the whole /health answer 503. */
  store?: "ok" | "down";
  writers?: WriterInfo[];
  /** When the last refresh (board, snapshot, fills) succeeded, ms since the epoch; null before the first. */
  lastRefreshMs?: number | null;
}

/** Something that reports on its own health; a service registers one per store, election or loop. */
export interface HealthSource {
  health(): HealthFacts | Promise<HealthFacts>;
}

/** How long a source may take before it counts as down (a hung store must not hang the probe). */
const SOURCE_TIMEOUT_MS = 2_000;

interface ServiceHealthOptions {
  /** A source slower than this counts as a store down (default 2 s). */
  sourceTimeoutMs?: number;
}

/**
 * The health of one service: its contract fields (`base`) plus what its sources report. The body
 * keeps every field the contract names and adds `store` (`ok` or `down`), `writers` (and `writer`,
 * the role alone, when there is one job) and `last_refresh` (ISO 8601; `last_refresh_at` in ms) when
 * a source reports them; the status is 503, and `status` reads `unavailable`, while the store is down.
 */
export class ServiceHealth {
  private readonly sources: HealthSource[] = [];

  private readonly timeoutMs: number;

  constructor(
    private readonly base: () => Record<string, unknown> | Promise<Record<string, unknown>>,
    opts: ServiceHealthOptions = {},
  ) {
    this.timeoutMs = opts.sourceTimeoutMs ?? SOURCE_TIMEOUT_MS;
  }

  register(source: HealthSource): void {
    this.sources.push(source);
  }

  async reply(): Promise<Reply> {
    const body = { ...(await this.base()) };
    const facts = await Promise.all(this.sources.map((s) => within(s, this.timeoutMs)));
    const stores = facts.flatMap((f) => (f.store ? [f.store] : []));
    const writers = facts.flatMap((f) => f.writers ?? []);
    const refreshes = facts.flatMap((f) => (f.lastRefreshMs === undefined ? [] : [f.lastRefreshMs]));
    const down = stores.includes("down");
    if (stores.length > 0) body.store = down ? "down" : "ok";
    if (writers.length > 0) body.writers = writers;
    if (writers.length === 1) {
      const { role, term, since } = writers[0]!;
      body.writer = { role, term, since };
    }
    if (refreshes.length > 0) {
      const known = refreshes.filter((t): t is number => t !== null);
      const oldest = known.length === refreshes.length ? Math.min(...known) : null;
      body.last_refresh_at = oldest;
      body.last_refresh = oldest === null ? null : new Date(oldest).toISOString();
    }
    if (down) body.status = "unavailable";
    return json(body, down ? 503 : 200);
  }

  /** Serve this health at each of `paths` (`/health` and the contract's aliases). */
  serve(app: HttpApp, paths: readonly string[]): void {
    for (const path of paths) app.get(path, () => this.reply());
  }
}

async function within(source: HealthSource, timeoutMs: number): Promise<HealthFacts> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<HealthFacts>((resolve) => {
    timer = setTimeout(() => resolve({ store: "down" }), timeoutMs);
  });
  try {
    return await Promise.race([Promise.resolve(source.health()), timeout]);
  } catch {
    return { store: "down" };
  } finally {
    clearTimeout(timer);
  }
}

/** The one process of a service not replicated: always the writer of its job, since it started. */
export function soleWriter(lease: string, since: number): HealthSource {
  return { health: () => ({ writers: [{ lease, role: "writer", term: null, since }] }) };
}

/** A store's health from a cheap query (`SELECT 1`): ok when it answers, down when it throws. */
export function storeProbe(check: () => Promise<unknown>): HealthSource {
  return {
    async health() {
      try {
        await check();
        return { store: "ok" };
      } catch {
        return { store: "down" };
      }
    },
  };
}
