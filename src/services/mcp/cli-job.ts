import type { ChildProcess } from "node:child_process";
import { spawnSupervised } from "../agent/spawn-supervised.ts";
import { HL_BIN } from "../agent/supervisor.ts";
import { ToolError, type ToolProgress } from "./tool.ts";

export type OutputStream = "stdout" | "stderr";

interface CliJobOptions {
  args: string[];
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  /** Hard limit; the job gets SIGTERM (graceful shutdown), then SIGKILL after `graceMs`. */
  timeoutMs?: number;
  graceMs?: number;
  /** Called for each output line; return a progress report to forward it. */
  onLine?: (line: string, stream: OutputStream) => ToolProgress | undefined;
  progress?: (p: ToolProgress) => void;
}

interface CliJobResult {
  stdout: string;
  stderr: string;
  code: number;
}

const KEY = /0x[0-9a-fA-F]{64}/g;
/** Output kept in an error's details: enough to see what went wrong, never a whole run's log. */
const DETAIL_CHARS = 4000;

const redact = (s: string) => s.replace(KEY, "0x<redacted>");
const tail = (s: string) => (s.length > DETAIL_CHARS ? `…${s.slice(-DETAIL_CHARS)}` : s);

interface RunningJob {
  stop(reason: string): void;
  done: Promise<void>;
}

/** Jobs still running, so a server that shuts down can stop them gracefully and wait for their state. */
const running = new Set<RunningJob>();

/** SIGTERM every running job and wait (at most `waitMs`) until they have exited. */
export async function stopAllJobs(reason: string, waitMs = 15_000): Promise<void> {
  const jobs = [...running];
  for (const job of jobs) job.stop(reason);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.all(jobs.map((j) => j.done)),
    new Promise<void>((r) => {
      timer = setTimeout(r, waitMs);
    }),
  ]);
  clearTimeout(timer);
}

export function runningJobCount(): number {
  return running.size;
}

function lineSplitter(stream: OutputStream, opts: CliJobOptions): (chunk: string) => void {
  let partial = "";
  return (chunk) => {
    if (!opts.onLine) return;
    partial += chunk;
    const lines = partial.split("\n");
    partial = lines.pop() ?? "";
    for (const line of lines) {
      const p = opts.onLine(line, stream);
      if (p) opts.progress?.(p);
    }
  };
}

/**
 * Runs one `hl` command as a child process: stdin closed (no prompt can ever wait for input), its own
 * process group, graceful SIGTERM on cancellation or timeout so the job saves its state. A non-zero
 * exit becomes a ToolError carrying the job's own error line.
 */
export function runCli(opts: CliJobOptions): Promise<CliJobResult> {
  return new Promise((resolve, reject) => {
    if (opts.signal.aborted) return reject(new ToolError("Cancelled before start"));
    // The job stops if this server dies (bin/hl.mjs).
    const child: ChildProcess = spawnSupervised(HL_BIN, opts.args, { env: opts.env, output: "pipe" });
    let stdout = "";
    let stderr = "";
    let stopReason: string | undefined;
    const graceMs = opts.graceMs ?? 10_000;
    let killTimer: NodeJS.Timeout | undefined;

    const kill = (sig: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, sig);
      } catch {
        child.kill(sig);
      }
    };
    let markDone: () => void = () => {};
    const job: RunningJob = {
      stop(reason) {
        if (stopReason || child.exitCode !== null) return;
        stopReason = reason;
        kill("SIGTERM");
        killTimer = setTimeout(() => kill("SIGKILL"), graceMs);
        killTimer.unref();
      },
      done: new Promise<void>((r) => {
        markDone = r;
      }),
    };
    running.add(job);
    const onAbort = () => job.stop("cancelled by the client");
    opts.signal.addEventListener("abort", onAbort, { once: true });
    const timer = opts.timeoutMs
      ? setTimeout(
          () => job.stop(`timed out after ${Math.round((opts.timeoutMs ?? 0) / 1000)} s`),
          opts.timeoutMs,
        )
      : undefined;

    const outLines = lineSplitter("stdout", opts);
    const errLines = lineSplitter("stderr", opts);
    child.stdout?.setEncoding("utf8");
    child.stderr?.setEncoding("utf8");
    child.stdout?.on("data", (chunk: string) => {
      stdout += chunk;
      outLines(chunk);
    });
    child.stderr?.on("data", (chunk: string) => {
      stderr += chunk;
      errLines(chunk);
    });
    const finish = () => {
      if (timer) clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      opts.signal.removeEventListener("abort", onAbort);
      running.delete(job);
      markDone();
    };
    child.on("error", (err) => {
      finish();
      reject(new ToolError(`could not start hl: ${err.message}`));
    });
    child.on("close", (code, signal) => {
      finish();
      const out = { stdout: redact(stdout), stderr: redact(stderr) };
      const details = { stdout: tail(out.stdout), stderr: tail(out.stderr) };
      if (stopReason) {
        return reject(
          new ToolError(`hl ${opts.args[0]} ${stopReason}`, {
            ...details,
            stopped: true,
            exit_code: code,
            exit_signal: signal,
          }),
        );
      }
      const exit = code ?? (signal ? 128 : 1);
      if (exit !== 0) {
        const line =
          out.stderr.trim().split("\n").pop() || out.stdout.trim().split("\n").pop() || `exit ${exit}`;
        return reject(new ToolError(line.replace(/^error:\s*/, ""), { exit_code: exit, ...details }));
      }
      resolve({ ...out, code: exit });
    });
  });
}

/** Parse the JSON document a `--json` command printed (the whole output, or its last non-empty line). */
export function parseJsonOutput(stdout: string): unknown {
  const text = stdout.trim();
  try {
    return JSON.parse(text);
  } catch {
    const last = text.split("\n").filter(Boolean).pop() ?? "";
    try {
      return JSON.parse(last);
    } catch {
      throw new ToolError("hl printed no JSON result", { stdout: text.slice(-2000) });
    }
  }
}
