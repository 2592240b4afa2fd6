import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { UserError } from "../core/errors.ts";
import { createFileExclusive } from "./atomic.ts";

/**
 * One trading loop per state directory. Two `hl run` (or `hl wolf run`) processes on the same data
 * would trade the same wallet twice and overwrite each other's state, so the second is refused while
 * the first lives. A lock left by a process that died (even SIGKILLed) is taken over: it names a pid
 * that no longer runs, or a pid now used by another process (its start time differs).
 */

interface LockRecord {
  pid: number;
  /** Process start time in clock ticks since boot (/proc/<pid>/stat field 22), where /proc exists. */
  start: string | null;
  command: string;
  since: string;
}

export interface RunLock {
  path: string;
  release(): void;
}

function startTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may contain spaces) start after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

function processState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  } catch {
    return null;
  }
}

/** Our supervisors name themselves to a child in this variable (src/services/agent/spawn-supervised.ts). */
const SUPERVISOR_PID_ENV = "HL_SUPERVISOR_PID";

/** Parent pid and the supervisor named at its start (its environment as it began), from /proc. */
function lineage(pid: number): { ppid: number; supervisor: number | undefined } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    const env = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
    const named = env
      .find((e) => e.startsWith(`${SUPERVISOR_PID_ENV}=`))
      ?.slice(SUPERVISOR_PID_ENV.length + 1);
    return { ppid, supervisor: named ? Number(named) || undefined : undefined };
  } catch {
    return undefined;
  }
}

/**
 * A trader paused by its supervisor (SIGSTOP) whose supervisor was then killed stays stopped for
 * ever: nothing resumes it, so it can never see that its supervisor is gone, and it keeps its lock.
 * Resumed, it sees its channel closed and stops itself as on SIGTERM (state saved). Only such a
 * holder is woken: one stopped by hand, or whose supervisor still runs, is left as it is.
 */
function wakeOrphanedPausedHolder(r: LockRecord, path: string): boolean {
  if (processState(r.pid) !== "T") return false;
  const l = lineage(r.pid);
  if (!l || l.supervisor === undefined || l.ppid === l.supervisor) return false;
  process.stderr.write(
    `${r.command} (pid ${r.pid}) was left paused by a supervisor (pid ${l.supervisor}) that is gone; resuming it so it stops itself\n`,
  );
  try {
    process.kill(-r.pid, "SIGCONT"); // its group: it leads one, as our supervisors start it
  } catch {
    process.kill(r.pid, "SIGCONT");
  }
  // Until it is gone, not merely until it lets go of the lock: it releases the lock on its way out,
  // and a new trader must not start beside one still finishing.
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + ORPHAN_STOP_WAIT_MS;
  while (Date.now() < deadline) {
    if (!holderAlive(r)) return true;
    const current = readRecord(path);
    if (current && current.pid !== r.pid) return true; // another starter has it: judged as usual
    Atomics.wait(pause, 0, 0, 50); // a start-up wait: nothing else runs yet
  }
  const current = readRecord(path);
  return !holderAlive(r) || current?.pid !== r.pid;
}

/** How long a woken orphan gets to stop (its own grace before it kills itself is 10 s). */
const ORPHAN_STOP_WAIT_MS = 15_000;

/** Is the process that wrote `r` still the one running under its pid? */
function holderAlive(r: LockRecord): boolean {
  try {
    process.kill(r.pid, 0);
  } catch (err) {
    // EPERM: alive but someone else's process — still a live holder.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
  if (processState(r.pid) === "Z") return false;
  const now = startTime(r.pid);
  return r.start === null || now === null || now === r.start;
}

function readRecord(path: string): LockRecord | undefined {
  try {
    const r = JSON.parse(readFileSync(path, "utf8")) as Partial<LockRecord>;
    return typeof r.pid === "number" ? (r as LockRecord) : undefined;
  } catch {
    return undefined;
  }
}

/** Locks this process holds, released together if it exits without releasing them. */
const held = new Set<string>();
let exitHook = false;

function unlinkIfOurs(path: string): void {
  if (readRecord(path)?.pid !== process.pid) return;
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/** Take `<dir>/<name>.lock` for this process, or throw a UserError naming the live holder. */
export function acquireRunLock(dir: string, name: string, command: string): RunLock {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.lock`);
  const record: LockRecord = {
    pid: process.pid,
    start: startTime(process.pid),
    command,
    since: new Date().toISOString(),
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    // Linked into place whole: nobody ever reads a half-written lock, and of two starters one wins.
    if (!createFileExclusive(path, JSON.stringify(record), 0o600)) {
      const holder = readRecord(path);
      if (holder && holderAlive(holder) && !wakeOrphanedPausedHolder(holder, path)) {
        const paused = processState(holder.pid) === "T" ? " (it is stopped: SIGCONT it, or stop it)" : "";
        throw new UserError(
          `${holder.command} (pid ${holder.pid}) is already trading from ${dir} since ${holder.since}${paused}; stop it first`,
        );
      }
      // A dead holder's lock (or an unreadable one). Move it aside first and check that what moved is
      // the lock judged dead — a starter racing us may have just replaced it with its own, live one.
      const tomb = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.stale`;
      try {
        renameSync(path, tomb);
      } catch {
        continue; // another starter moved it first
      }
      const moved = readRecord(tomb);
      if (moved && (moved.pid !== holder?.pid || moved.since !== holder?.since)) {
        try {
          linkSync(tomb, path); // not ours to remove: put it back
        } catch {
          // the name was taken again meanwhile
        }
      }
      unlinkSync(tomb);
      continue;
    }
    held.add(path);
    if (!exitHook) {
      exitHook = true;
      process.on("exit", () => {
        for (const p of held) unlinkIfOurs(p);
      });
    }
    return {
      path,
      release() {
        if (!held.delete(path)) return;
        unlinkIfOurs(path);
      },
    };
  }
  throw new UserError(`could not take the lock ${path}: another process keeps replacing it`);
}
