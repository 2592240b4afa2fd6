import { spawn } from "node:child_process";
import { HL_BIN } from "../agent/supervisor.ts";
import { ToolError, type ToolProgress } from "./tool.ts";

export interface CliJobOptions {
  args: string[];
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  /** Hard limit; the job gets SIGTERM (graceful shutdown), then SIGKILL after `graceMs`. */
  timeoutMs?: number;
  graceMs?: number;
  /** Called for each stdout line; return a progress report to forward it. */
  onLine?: (line: string) => ToolProgress | undefined;
  progress?: (p: ToolProgress) => void;
}

export interface CliJobResult {
  stdout: string;
  stderr: string;
  code: number;
}

const KEY = /0x[0-9a-fA-F]{64}/g;

/**
 * Runs one `hl` command as a child process: stdin closed (no prompt can ever wait for input), its own
 * process group, graceful SIGTERM on cancellation or timeout so the job saves its state. A non-zero
 * exit becomes a ToolError carrying the job's own error line.
 */
export function runCli(opts: CliJobOptions): Promise<CliJobResult> {
  return new Promise((resolve, reject) => {
    if (opts.signal.aborted) return reject(new ToolError("Cancelled before start"));
    const child = spawn(process.execPath, [HL_BIN, ...opts.args], {
      env: opts.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    let partial = "";
    let stopReason: string | undefined;
    const graceMs = opts.graceMs ?? 10_000;

    const kill = (sig: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, sig);
      } catch {
        child.kill(sig);
      }
    };
    const stop = (reason: string) => {
      if (stopReason) return;
      stopReason = reason;
      kill("SIGTERM");
      setTimeout(() => kill("SIGKILL"), graceMs).unref();
    };
    const onAbort = () => stop("cancelled by the client");
    opts.signal.addEventListener("abort", onAbort, { once: true });
    const timer = opts.timeoutMs
      ? setTimeout(() => stop(`timed out after ${Math.round(opts.timeoutMs! / 1000)} s`), opts.timeoutMs)
      : undefined;

    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      stdout += chunk;
      if (!opts.onLine) return;
      partial += chunk;
      const lines = partial.split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        const p = opts.onLine(line);
        if (p) opts.progress?.(p);
      }
    });
    child.stderr.on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", (err) => reject(new ToolError(`could not start hl: ${err.message}`)));
    child.on("close", (code, signal) => {
      if (timer) clearTimeout(timer);
      opts.signal.removeEventListener("abort", onAbort);
      const out = { stdout: stdout.replace(KEY, "0x<redacted>"), stderr: stderr.replace(KEY, "0x<redacted>") };
      if (stopReason) {
        return reject(new ToolError(`hl ${opts.args[0]} ${stopReason}`, { ...out, stopped: true }));
      }
      const exit = code ?? (signal ? 128 : 1);
      if (exit !== 0) {
        const line = out.stderr.trim().split("\n").pop() || out.stdout.trim().split("\n").pop() || `exit ${exit}`;
        return reject(new ToolError(line.replace(/^error:\s*/, ""), { exit_code: exit, ...out }));
      }
      resolve({ ...out, code: exit });
    });
  });
}

/** Parse the JSON document a `--json` command printed (its last non-empty line or the whole output). */
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
