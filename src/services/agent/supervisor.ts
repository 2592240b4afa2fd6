import { type ChildProcess, spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { fileURLToPath } from "node:url";

/** Path of the `hl` launcher, so children run the same code base as their parent. */
export const HL_BIN = fileURLToPath(new URL("../../../bin/hl.mjs", import.meta.url));

export interface SupervisorOptions {
  args: string[];
  /** Script run by node; the `hl` launcher unless a test substitutes a fake job. */
  entry?: string;
  env?: NodeJS.ProcessEnv;
  /** Back-off before restart n (1-based): min(maxBackoffMs, baseBackoffMs·2^(n−1)). */
  baseBackoffMs?: number;
  maxBackoffMs?: number;
  /** Consecutive crashes after which the supervisor gives up. */
  maxRestarts?: number;
  /** A child that lived at least this long resets the crash count. */
  healthyAfterMs?: number;
  /** How long SIGTERM may take before SIGKILL. */
  stopTimeoutMs?: number;
  /** Where the child's stdout and stderr go; a number is an open file descriptor (e.g. a log file). */
  stdio?: "inherit" | "ignore" | "pipe" | number;
}

export type SupervisorState =
  | "starting"
  | "running"
  | "paused"
  | "backoff"
  | "exited"
  | "gave_up"
  | "stopped";

/**
 * Runs the trading job as a child process in its own process group and keeps it alive: restarts
 * with exponential back-off after a crash, stops on a clean exit (e.g. max ticks reached), and
 * pauses/resumes the whole group with SIGSTOP/SIGCONT so no grandchild keeps trading.
 */
export class Supervisor extends EventEmitter {
  private child: ChildProcess | undefined;
  private state: SupervisorState = "starting";
  private crashes = 0;
  private restarts = 0;
  private startedAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  private readonly o: Required<Omit<SupervisorOptions, "env">> & { env: NodeJS.ProcessEnv };

  constructor(opts: SupervisorOptions) {
    super();
    this.o = {
      args: opts.args,
      entry: opts.entry ?? HL_BIN,
      env: opts.env ?? process.env,
      baseBackoffMs: opts.baseBackoffMs ?? 1000,
      maxBackoffMs: opts.maxBackoffMs ?? 60_000,
      maxRestarts: opts.maxRestarts ?? 10,
      healthyAfterMs: opts.healthyAfterMs ?? 60_000,
      stopTimeoutMs: opts.stopTimeoutMs ?? 15_000,
      stdio: opts.stdio ?? "inherit",
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

  get restartCount(): number {
    return this.restarts;
  }

  start(): void {
    this.stopping = false;
    this.spawnChild();
  }

  private spawnChild(): void {
    const child = spawn(process.execPath, [this.o.entry, ...this.o.args], {
      env: this.o.env,
      // The IPC channel only tells the child when we are gone (see bin/hl.mjs).
      stdio: ["ignore", this.o.stdio, this.o.stdio, "ipc"],
      detached: true,
    });
    this.child = child;
    this.startedAt = Date.now();
    this.state = "running";
    this.emit("spawn", child.pid);
    child.on("error", (err) => this.emit("error", err));
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
    if (Date.now() - this.startedAt >= this.o.healthyAfterMs) this.crashes = 0;
    this.crashes += 1;
    if (this.crashes > this.o.maxRestarts) {
      this.state = "gave_up";
      this.emit("gave_up");
      return;
    }
    const delay = Math.min(this.o.maxBackoffMs, this.o.baseBackoffMs * 2 ** (this.crashes - 1));
    this.emit("crash", { code, signal, crashes: this.crashes, restartInMs: delay });
    this.state = "backoff";
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.stopping) return;
      this.restarts += 1;
      this.emit("restart", this.restarts);
      this.spawnChild();
    }, delay);
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
