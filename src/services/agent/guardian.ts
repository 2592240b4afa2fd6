import type { Alerter } from "../../alerts/webhook.ts";

/**
 * Why the guard path runs: the trader is paused (SIGSTOP), waits out a long restart back-off after
 * crashes, or its supervisor gave up on it.
 */
export type GuardReason = "paused" | "restarting" | "protect_only";

/** A started guard-only job (no entries, every exit rule, closes retried). */
export interface GuardJob {
  readonly pid: number | null;
  /** True while the job runs (or is being restarted after a crash of its own). */
  readonly running: boolean;
  stop(): Promise<void>;
}

/**
 * Starts a guard-only job over the trader's open positions. Beside a paused trader ("paused") the
 * job takes neither the run lock nor state.json; otherwise both are its own.
 */
export type StartGuard = (reason: GuardReason) => GuardJob;

interface GuardianOptions {
  startGuard: StartGuard;
  alerter: Alerter;
  /** A pause longer than this is alerted (default 10 min, AGENT_PAUSE_ALERT_S). */
  longPauseMs: number;
  log?: (event: Record<string, unknown>) => void;
}

const jsonLine = (event: Record<string, unknown>) =>
  process.stderr.write(`${JSON.stringify({ ts: new Date().toISOString(), ...event })}\n`);

/**
 * Keeps positions guarded when the trading child cannot: while it is paused (the pause stops the
 * child, not this), and after its supervisor gave up (protect-only mode). The guard job must be
 * stopped before the child runs again, so that one process at a time owns the slots.
 */
export class Guardian {
  private job: GuardJob | undefined;
  /** Whether the running job was started beside a paused trader. */
  private jobBesidePaused = false;
  /** A job being swapped for one of the other kind. */
  private swap: Promise<void> = Promise.resolve();
  private why: GuardReason | undefined;
  private pausedAt: number | undefined;
  private longPauseTimer: NodeJS.Timeout | undefined;
  private readonly log: (event: Record<string, unknown>) => void;

  constructor(private readonly o: GuardianOptions) {
    this.log = o.log ?? jsonLine;
  }

  get active(): boolean {
    return this.job?.running ?? false;
  }

  get reason(): GuardReason | null {
    return this.why ?? null;
  }

  get pid(): number | null {
    return this.job?.pid ?? null;
  }

  /** Seconds the trader has been paused, or null. */
  pausedForS(nowMs = Date.now()): number | null {
    return this.pausedAt === undefined ? null : Math.floor((nowMs - this.pausedAt) / 1000);
  }

  /** The trader was just paused: guard its positions, and alert if the pause lasts. */
  paused(): void {
    this.pausedAt = Date.now();
    this.engage("paused");
    this.longPauseTimer = setTimeout(() => {
      const mins = Math.round(this.o.longPauseMs / 60_000);
      const text = `trading job paused for more than ${mins >= 1 ? `${mins} min` : `${Math.round(this.o.longPauseMs / 1000)} s`}: no entries; positions guarded by ${this.active ? "the guard-only job and " : ""}the exchange backstops`;
      this.log({ event: "long_pause", paused_for_s: this.pausedForS(), guard_active: this.active });
      this.o.alerter.send("paused", text);
    }, this.o.longPauseMs);
    this.longPauseTimer.unref();
  }

  /** The trader is about to be resumed: the guard job stops first (and is waited for). */
  async resuming(): Promise<void> {
    if (this.longPauseTimer) clearTimeout(this.longPauseTimer);
    this.longPauseTimer = undefined;
    this.pausedAt = undefined;
    await this.release();
  }

  /** The trader crashed and its restart is some seconds away: its positions are guarded meanwhile. */
  restarting(): void {
    this.engage("restarting");
  }

  /**
   * A new trader is about to start (after a back-off, or at once after a paused trader was killed):
   * the guard job that held the positions stops first.
   */
  async restartDue(): Promise<void> {
    if (this.why === "restarting") await this.release();
    else if (this.why === "paused") await this.resuming();
  }

  /** The supervisor gave up on the trader: protect-only mode. */
  protectOnly(detail: string): void {
    this.engage("protect_only");
    const text = `${detail}; protect-only mode: no entries, every exit rule still applied to the open positions`;
    this.log({ event: "protect_only", detail, guard_pid: this.pid });
    this.o.alerter.send("protect_only", text);
  }

  private engage(reason: GuardReason): void {
    this.why = reason;
    const besidePaused = reason === "paused";
    const old = this.job;
    if (old && this.jobBesidePaused === besidePaused) return;
    this.jobBesidePaused = besidePaused;
    if (!old) {
      this.job = this.o.startGuard(reason);
      this.log({ event: "guard_started", reason, guard_pid: this.job.pid });
      return;
    }
    // The trader is no longer paused (or now is): the job that read-only guarded beside it gives way
    // to one that owns the lock and state (or the reverse), one at a time.
    this.job = undefined;
    this.swap = this.swap
      .then(() => old.stop())
      .then(() => {
        if (this.job || this.why !== reason) return;
        this.job = this.o.startGuard(reason);
        this.log({ event: "guard_started", reason, guard_pid: this.job.pid });
      });
  }

  /** Stop the guard job (resume, service shutdown). */
  async release(): Promise<void> {
    if (this.longPauseTimer) clearTimeout(this.longPauseTimer);
    this.longPauseTimer = undefined;
    const job = this.job;
    this.job = undefined;
    this.why = undefined;
    await this.swap;
    if (job) {
      await job.stop();
      this.log({ event: "guard_stopped" });
    }
  }
}
