import type pg from "pg";
import type { HealthFacts, HealthSource, WriterInfo } from "../http/health.ts";
import { asLog, type Log, type LogSink, reason } from "./log.ts";
import { loadPg } from "./pool.ts";
import type { StoreHealth } from "./store-health.ts";

/**
 * Proof of being the elected writer of one singleton job: the lease's name and the token it was
 * granted. A write made under a fence commits only while that token is still the lease's token.
 */
export interface Fence {
  name: string;
  token: string;
}

/** A write was refused because another replica took the job over since this one was elected. */
export class FencedOutError extends Error {
  constructor(name: string) {
    super(`${name}: this replica is no longer the elected writer`);
    this.name = "FencedOutError";
  }
}

interface LeaderElectionOptions {
  /** Postgres URL; the election holds one dedicated connection (the advisory lock lives on it). */
  connectionString: string;
  /** The singleton job, e.g. "feeds:BTCSWP" (also the lease row's key). */
  name: string;
  /** Who holds the lease, for operators reading `leader_leases` (default host:pid). */
  holder?: string;
  /** A writer that has not renewed its lease for this long is replaced even if still connected (default 2.5 s). */
  leaseMs?: number;
  /** How often a follower tries to take over (default 500 ms). */
  retryMs?: number;
  /** Failed attempts (Postgres unreachable) are retried after retryMs, doubling up to this (default 5 s). */
  maxRetryMs?: number;
  /** Called once per term, with the term's fence; a rejection ends the term. */
  onElected(fence: Fence): void | Promise<void>;
  /** Called when a term ends (lease lost, connection lost, or stop()). */
  onDeposed(): void | Promise<void>;
  /** One line per change of state: elected, deposed, unreachable, reachable again. */
  log?: LogSink;
  /** Told whether each attempt reached the database (a follower notices an outage within retryMs). */
  health?: StoreHealth;
}

/** What this replica is for one job, and since when (ms). */
type ElectionStatus = Omit<WriterInfo, "lease">;

/** The 64-bit advisory lock key of a job name (Postgres hashes it, so every replica agrees). */
const LOCK_KEY = "hashtextextended($1, 0)";

/**
 * One singleton job's leader election. The writer holds `pg_try_advisory_lock(key)` on a dedicated
 * connection, so a writer that dies (or loses its connection) frees the job at once; it also renews a
 * lease row, so a writer that hangs while still connected is replaced once its lease expires — the
 * follower ends the hung backend, which frees the lock. Each term bumps the lease's token, and writes
 * carry it as a fence (see `fencedTransaction`), so a deposed writer that wakes up cannot write.
 */
export class LeaderElection implements HealthSource {
  private client: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private fence: Fence | undefined;
  private renewedAt = 0;
  private roleSince = Date.now();
  private stopped = false;
  private step: Promise<void> = Promise.resolve();
  /** Consecutive failed attempts, and the reason last logged (a new reason is logged once). */
  private failures = 0;
  private failing: string | undefined;
  private readonly leaseMs: number;
  private readonly retryMs: number;
  private readonly maxRetryMs: number;
  private readonly holder: string;
  private readonly log: Log;

  constructor(private readonly opts: LeaderElectionOptions) {
    this.leaseMs = opts.leaseMs ?? 2_500;
    this.retryMs = opts.retryMs ?? 500;
    this.maxRetryMs = Math.max(this.retryMs, opts.maxRetryMs ?? 5_000);
    this.holder = opts.holder ?? `${process.env.HOSTNAME ?? "host"}:${process.pid}`;
    this.log = asLog(opts.log);
  }

  /** The current term's fence, or undefined while this replica is not the writer. */
  get current(): Fence | undefined {
    return this.fence;
  }

  /** Writer or follower, the term, and since when. */
  status(): ElectionStatus {
    return {
      role: this.fence ? "writer" : "follower",
      term: this.fence?.token ?? null,
      since: this.roleSince,
    };
  }

  /** This replica's part in the job, for /health. */
  health(): HealthFacts {
    return { writers: [{ lease: this.opts.name, ...this.status() }] };
  }

  /** Begin campaigning; resolves after the first attempt (elected or not). */
  async start(): Promise<void> {
    this.stopped = false;
    await this.tick();
  }

  /** Give the job up (if held) and stop campaigning. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.step;
    await this.depose();
    await this.disconnect();
  }

  private schedule(): void {
    if (this.stopped) return;
    const delay = this.fence
      ? Math.max(100, Math.floor(this.leaseMs / 3))
      : Math.min(this.maxRetryMs, this.retryMs * 2 ** Math.min(10, Math.max(0, this.failures - 1)));
    this.timer = setTimeout(() => void this.tick(), delay);
    this.timer.unref();
  }

  private tick(): Promise<void> {
    this.step = this.step.then(async () => {
      if (this.stopped) return;
      try {
        if (this.fence) await this.renew();
        else await this.campaign();
        this.recovered();
      } catch (err) {
        this.attemptFailed(err);
        await this.depose();
        await this.disconnect();
      }
      this.schedule();
    });
    return this.step;
  }

  /** A failed attempt: logged when the failing starts or its reason changes, not on every retry. */
  private attemptFailed(err: unknown): void {
    this.failures++;
    const why = reason(err);
    const down = this.opts.health?.failed(err) ?? false;
    if (why === this.failing) return;
    this.failing = why;
    this.log.warn(
      {
        event: "election_failing",
        lease: this.opts.name,
        holder: this.holder,
        reason: why,
        store: down ? "down" : "ok",
      },
      `${this.opts.name}: election attempts failing (${why}); retrying with back-off up to ${this.maxRetryMs / 1000} s`,
    );
  }

  private recovered(): void {
    this.opts.health?.reached();
    if (this.failing !== undefined) {
      this.log.info(
        { event: "election_recovered", lease: this.opts.name, holder: this.holder, failures: this.failures },
        `${this.opts.name}: election attempts succeed again`,
      );
    }
    this.failures = 0;
    this.failing = undefined;
  }

  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    const client = new (loadPg().Client)({ connectionString: this.opts.connectionString });
    // A dropped connection has already freed the lock: step down at once, reconnect on the next try.
    client.on("error", () => {
      if (this.client === client) this.client = undefined;
      void this.depose();
    });
    await client.connect();
    // Never wait forever behind a lock (a hung writer's transaction): fail this attempt, retry the next.
    await client.query(`SET lock_timeout = ${Math.max(500, this.leaseMs)}`);
    this.client = client;
    return client;
  }

  private async disconnect(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async campaign(): Promise<void> {
    const c = await this.connection();
    const got = await c.query<{ got: boolean }>(`SELECT pg_try_advisory_lock(${LOCK_KEY}) AS got`, [
      this.opts.name,
    ]);
    if (!got.rows[0]?.got) {
      await this.replaceIfHung(c);
      return;
    }
    const lease = await c.query<{ token: string }>(
      `INSERT INTO leader_leases (name, holder, token, backend_pid, expires_at)
       VALUES ($1, $2, 1, pg_backend_pid(), now() + $3 * interval '1 millisecond')
       ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, token = leader_leases.token + 1,
         backend_pid = excluded.backend_pid, expires_at = excluded.expires_at
       RETURNING token::text AS token`,
      [this.opts.name, this.holder, this.leaseMs],
    );
    const token = lease.rows[0]?.token;
    if (token === undefined) throw new Error("lease row not written");
    this.fence = { name: this.opts.name, token };
    this.renewedAt = Date.now();
    this.roleSince = this.renewedAt;
    this.log.info(
      { event: "elected", lease: this.opts.name, holder: this.holder, term: token },
      `${this.opts.name}: ${this.holder} elected writer (term ${token})`,
    );
    try {
      await this.opts.onElected(this.fence);
    } catch (err) {
      this.log.error(
        { event: "election_take_failed", lease: this.opts.name, holder: this.holder, reason: reason(err) },
        `${this.opts.name}: could not take the job: ${reason(err)}`,
      );
      await this.depose();
      await c.query(`SELECT pg_advisory_unlock(${LOCK_KEY})`, [this.opts.name]).catch(() => undefined);
    }
  }

  /**
   * The lock is held elsewhere. If that holder's lease has expired it is connected but not working:
   * end its backend (only if it really is the one holding this job's lock), which frees the lock.
   */
  private async replaceIfHung(c: pg.Client): Promise<void> {
    await c.query(
      `SELECT pg_terminate_backend(l.backend_pid)
         FROM leader_leases l
        WHERE l.name = $1 AND l.expires_at < now()
          AND EXISTS (SELECT 1 FROM pg_locks k
                       WHERE k.locktype = 'advisory' AND k.granted AND k.pid = l.backend_pid
                         AND ((k.classid::bigint << 32) | k.objid::bigint) = ${LOCK_KEY})`,
      [this.opts.name],
    );
  }

  private async renew(): Promise<void> {
    const fence = this.fence;
    if (!fence) return;
    // Past our own lease without a renewal: another replica may already be replacing us.
    if (Date.now() - this.renewedAt > this.leaseMs) throw new Error("lease expired before it was renewed");
    const c = await this.connection();
    const renewed = await c.query(
      `UPDATE leader_leases SET expires_at = now() + $3 * interval '1 millisecond'
        WHERE name = $1 AND token = $2::bigint`,
      [fence.name, fence.token, this.leaseMs],
    );
    if (renewed.rowCount !== 1) throw new Error("lease taken over by another replica");
    this.renewedAt = Date.now();
  }

  private async depose(): Promise<void> {
    if (!this.fence) return;
    const term = this.fence.token;
    this.fence = undefined;
    this.roleSince = Date.now();
    this.log.warn(
      { event: "deposed", lease: this.opts.name, holder: this.holder, term },
      `${this.opts.name}: ${this.holder} no longer the writer (term ${term})`,
    );
    try {
      await this.opts.onDeposed();
    } catch (err) {
      this.log.error(
        { event: "deposed_failed", lease: this.opts.name, holder: this.holder, reason: reason(err) },
        `${this.opts.name}: stepping down failed: ${reason(err)}`,
      );
    }
  }
}

/**
 * How long a fenced transaction may sit idle before Postgres ends it: our transactions send their
 * statements back to back, so only a hung (stopped, swapped-out) writer idles this long, and ending
 * its session releases the lease row it share-locked, so the takeover is not blocked behind it.
 */
const FENCED_IDLE_TIMEOUT_MS = 1_000;

/**
 * Run `work` in one transaction that commits only while `fence` is the lease's current token. The
 * lease row is share-locked for the transaction, so a takeover (which updates the row) waits for it:
 * every committed write was made by the writer in office at commit time.
 */
export async function fencedTransaction<T>(
  pool: pg.Pool,
  fence: Fence | undefined,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    if (fence) {
      await client.query(`SET LOCAL idle_in_transaction_session_timeout = ${FENCED_IDLE_TIMEOUT_MS}`);
      const held = await client.query(
        "SELECT 1 FROM leader_leases WHERE name = $1 AND token = $2::bigint FOR SHARE",
        [fence.name, fence.token],
      );
      if (held.rowCount !== 1) throw new FencedOutError(fence.name);
    }
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
