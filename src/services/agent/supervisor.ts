import type { ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { spawnSupervised } from "./spawn-supervised.ts";

/** Path of the `hl` launcher, so children run the same code base as their parent. */
export const HL_BIN = fileURLToPath(new URL("../../../bin/hl.mjs", import.meta.url));

/** A child that lived this long before it crashed had an isolated crash: restarted at once. */
export const HEALTHY_AFTER_MS = 60_000;

export interface SupervisorOptions {
  args: string[];
  /** Script run by node; the `hl` launcher unless a test substitutes a fake job. */
  entry?: string;
  env?: NodeJS.ProcessEnv;
  /** Back-off before the restart after quick crash n: none for n = 1, then baseBackoffMs doubling. */
  baseBackoffMs?: number;
  /** The longest wait before a restart (30 s). */
  maxBackoffMs?: number;
  /** Consecutive crashes after which the supervisor gives up. */
  maxRestarts?: number;
  /** A child that lived at least this long resets the crash count. */
  healthyAfterMs?: number;
  /** How long SIGTERM may take before SIGKILL. */
  stopTimeoutMs?: number;
  /** Where the child's stdout and stderr go; a number is an open file descriptor (e.g. a log file). */
  stdio?: "inherit" | "ignore" | "pipe" | number;
  /** With stdio "pipe": handed each run's two streams as the child starts (each restart, new ones). */
  output?: (stream: Readable, name: "stdout" | "stderr", pid: number | null) => void;
  /**
   * Asked after the child failed: a reason when it stopped itself for good (a risk hard stop), which
   * a restart would undo; the supervisor then stays "halted" instead of restarting it.
   */
  finalStop?: () => string | undefined;
  /** Awaited before a restart is spawned (e.g. to stop a job that held the positions meanwhile). */
  beforeRestart?: () => Promise<void>;
}

type SupervisorState =
  | "starting"
  | "running"
  | "paused"
  | "backoff"
  | "exited"
  | "gave_up"
  | "halted"
  | "stopped";

/** A crash of the job: "exit 3", "SIGKILL" or "could not start: …"; the n-th in a row; the wait. */
export interface SupervisorCrash {
  reason: string;
  crashes: number;
  restartInMs: number;
}

export interface SupervisorGaveUp {
  reason: string;
  crashes: number;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Wait before restarting after the n-th crash in a row (1-based). An isolated crash is restarted at
 * once: an unguarded position must not wait on a timer. Only a crash loop backs off — 1 s, 2 s, 4 s …
 * up to `maxMs` — so a job that cannot start does not spin.
 */
export function restartDelayMs(crashes: number, baseMs: number, maxMs: number): number {
  if (crashes <= 1) return 0;
  return Math.min(maxMs, baseMs * 2 ** (crashes - 2));
}

/**
 * Runs the trading job as a child process in its own process group and keeps it alive: restarts
 * after a crash (at once, then with exponential back-off while it keeps crashing), stops on a clean exit (e.g. max ticks reached), and
 * pauses/resumes the whole group with SIGSTOP/SIGCONT so no grandchild keeps trading.
 */
export class Supervisor extends EventEmitter {
  private child: ChildProcess | undefined;
  private state: SupervisorState = "starting";
  private crashes = 0;
  private restarts = 0;
  private startedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  /** When the pending restart is due (Date.now() clock), while backing off. */
  private restartAt: number | undefined;
  private stopping = false;
  private haltReason: string | undefined;
  private lastFailure: SupervisorCrash | undefined;
  private readonly o: Required<Omit<SupervisorOptions, "env" | "finalStop" | "beforeRestart" | "output">> &
    Pick<SupervisorOptions, "finalStop" | "beforeRestart" | "output"> & { env: NodeJS.ProcessEnv };

  constructor(opts: SupervisorOptions) {
    super();
    this.o = {
      args: opts.args,
      entry: opts.entry ?? HL_BIN,
      env: opts.env ?? process.env,
      baseBackoffMs: opts.baseBackoffMs ?? 1000,
      maxBackoffMs: opts.maxBackoffMs ?? 30_000,
      maxRestarts: opts.maxRestarts ?? 10,
      healthyAfterMs: opts.healthyAfterMs ?? HEALTHY_AFTER_MS,
      stopTimeoutMs: opts.stopTimeoutMs ?? 15_000,
      stdio: opts.stdio ?? "inherit",
      finalStop: opts.finalStop,
      beforeRestart: opts.beforeRestart,
      output: opts.output,
    };
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  get alive(): boolean {
    return this.child !== undefined && (this.state === "running" || this.state === "paused");
  }

  get paused(): boolean {
    return this.state === "paused";
  }

  get status(): SupervisorState {
    return this.state;
  }

  /** Why the child stopped for good (state "halted"), or null. */
  get halt(): string | null {
    return this.haltReason ?? null;
  }

  /** The last crash (reason, its number in the current run of quick crashes), or null. */
  get lastCrash(): { reason: string; crashes: number } | null {
    return this.lastFailure ? { reason: this.lastFailure.reason, crashes: this.lastFailure.crashes } : null;
  }

  get restartCount(): number {
    return this.restarts;
  }

  /** Seconds until the pending restart (0.1 s resolution), or null when none is pending. */
  get restartInS(): number | null {
    if (this.restartAt === undefined) return null;
    return Math.max(0, Math.ceil((this.restartAt - Date.now()) / 100) / 10);
  }

  start(): void {
    this.stopping = false;
    this.spawnChild();
  }

  private spawnChild(): void {
    let child: ChildProcess;
    this.startedAt = Date.now();
    try {
      child = spawnSupervised(this.o.entry, this.o.args, { env: this.o.env, output: this.o.stdio });
    } catch (err) {
      // e.g. E2BIG, EAGAIN: counted like a crash, so it is retried, backed off and given up on loudly
      this.child = undefined;
      this.onFailure(`could not start: ${errorText(err)}`);
      return;
    }
    this.child = child;
    this.state = "running";
    if (this.o.output && child.stdout && child.stderr) {
      this.o.output(child.stdout, "stdout", child.pid ?? null);
      this.o.output(child.stderr, "stderr", child.pid ?? null);
    }
    this.emit("spawn", child.pid);
    child.on("error", (err) => {
      // A child that never started emits "error" and no "exit".
      if (child.pid === undefined && this.child === child) {
        this.child = undefined;
        this.onFailure(`could not start: ${errorText(err)}`);
      }
    });
    child.on("exit", (code, signal) => this.onExit(child, code, signal));
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    this.child = undefined;
    this.emit("exit", code, signal);
    if (this.stopping) {
      this.state = "stopped";
      return;
    }
    if (code === 0) {
      this.state = "exited";
      return;
    }
    const final = this.o.finalStop?.();
    if (final !== undefined) {
      this.state = "halted";
      this.haltReason = final;
      this.emit("halted", final);
      return;
    }
    this.onFailure(signal ?? `exit ${code}`);
  }

  private onFailure(reason: string): void {
    if (this.stopping) {
      this.state = "stopped";
      return;
    }
    if (Date.now() - this.startedAt >= this.o.healthyAfterMs) this.crashes = 0;
    this.crashes += 1;
    this.lastFailure = { reason, crashes: this.crashes, restartInMs: 0 };
    if (this.crashes > this.o.maxRestarts) {
      this.state = "gave_up";
      const gaveUp: SupervisorGaveUp = { reason, crashes: this.crashes };
      this.emit("gave_up", gaveUp);
      return;
    }
    const delay = restartDelayMs(this.crashes, this.o.baseBackoffMs, this.o.maxBackoffMs);
    this.state = "backoff";
    this.restartAt = Date.now() + delay;
    const crash: SupervisorCrash = { reason, crashes: this.crashes, restartInMs: delay };
    this.emit("crash", crash);
    const spawn = () => {
      if (this.stopping) return;
      this.restarts += 1;
      this.emit("restart", this.restarts);
      this.spawnChild();
    };
    const restart = () => {
      this.timer = undefined;
      this.restartAt = undefined;
      if (this.stopping) return;
      const before = this.o.beforeRestart;
      if (!before) return spawn();
      void before().then(spawn, (err: unknown) => {
        this.emit("error", err instanceof Error ? err : new Error(String(err)));
        spawn();
      });
    };
    if (delay === 0) restart();
    else this.timer = setTimeout(restart, delay);
  }

  private signalGroup(sig: NodeJS.Signals): boolean {
    const pid = this.child?.pid;
    if (pid === undefined) return false;
    try {
      process.kill(-pid, sig);
    } catch {
      try {
        process.kill(pid, sig);
      } catch {
        return false;
      }
    }
    return true;
  }

  /** SIGSTOP the job. Returns false when no child is running. */
  pause(): boolean {
    if (!this.alive) return false;
    if (this.state === "paused") return true;
    if (!this.signalGroup("SIGSTOP")) return false;
    this.state = "paused";
    return true;
  }

  /** SIGCONT the job. Returns false when nothing is paused. */
  resume(): boolean {
    if (this.state !== "paused") return false;
    if (!this.signalGroup("SIGCONT")) return false;
    this.state = "running";
    return true;
  }

  /** SIGTERM the job (continuing it first if paused), SIGKILL after the timeout. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.restartAt = undefined;
    const child = this.child;
    if (!child || child.exitCode !== null) {
      this.state = "stopped";
      return;
    }
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    if (this.state === "paused") this.signalGroup("SIGCONT");
    this.signalGroup("SIGTERM");
    const killer = setTimeout(() => this.signalGroup("SIGKILL"), this.o.stopTimeoutMs);
    await exited;
    clearTimeout(killer);
    this.state = "stopped";
  }
}
