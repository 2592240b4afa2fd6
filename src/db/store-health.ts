import type { HealthFacts, HealthSource } from "../http/health.ts";
import { type Log, reason } from "./log.ts";
import { unreachable } from "./reachable.ts";

/**
 * A store operation failed because Postgres cannot be reached. Its message is what clients see (503):
 * it names no server, address or port.
 */
export class StoreUnavailableError extends Error {
  constructor() {
    super("store unavailable");
    this.name = "StoreUnavailableError";
  }
}

/** How long a probe's answer is reused: health checks from several balancers cost one query. */
const PROBE_REUSE_MS = 1_000;

/**
 * Whether a replica's Postgres answers, learned from every store operation, election and probe.
 * Each change is logged once (`store unreachable`, then `store reachable again`), however many
 * operations fail in between.
 */
export class StoreHealth implements HealthSource {
  private downSince: number | undefined;
  private probed: { at: number; answer: Promise<void> } | undefined;

  constructor(
    private readonly log: Log,
    /** A cheap round trip to the database (`SELECT 1`), for health checks. */
    private readonly probe?: () => Promise<unknown>,
    private readonly now: () => number = Date.now,
  ) {}

  get state(): "ok" | "down" {
    return this.downSince === undefined ? "ok" : "down";
  }

  /** An operation reached the database. */
  reached(): void {
    if (this.downSince === undefined) return;
    const downMs = this.now() - this.downSince;
    this.downSince = undefined;
    this.log.info({ event: "store_up", down_ms: downMs }, "store reachable again");
  }

  /** An operation failed; true when the cause is an unreachable database (then the store is down). */
  failed(err: unknown): boolean {
    if (!unreachable(err)) return false;
    if (this.downSince === undefined) {
      this.downSince = this.now();
      this.log.warn({ event: "store_down", reason: reason(err) }, "store unreachable");
    }
    return true;
  }

  /** Run a store operation: an unreachable database becomes StoreUnavailableError; other errors pass. */
  async guard<T>(op: () => Promise<T>): Promise<T> {
    try {
      const result = await op();
      this.reached();
      return result;
    } catch (err) {
      if (this.failed(err)) throw new StoreUnavailableError();
      throw err;
    }
  }

  /** For /health: the store's state, asked now (at most once a second). */
  async health(): Promise<HealthFacts> {
    return { store: await this.check() };
  }

  /** Ask the database now (at most once a second) and answer the resulting state. */
  async check(): Promise<"ok" | "down"> {
    const probe = this.probe;
    if (!probe) return this.state;
    if (!this.probed || this.now() - this.probed.at >= PROBE_REUSE_MS) {
      this.probed = { at: this.now(), answer: this.guard(probe).then(() => undefined) };
    }
    await this.probed.answer.catch(() => undefined);
    return this.state;
  }
}
