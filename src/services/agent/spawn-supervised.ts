import { type ChildProcess, spawn } from "node:child_process";

/**
 * Names the supervisor's pid in a supervised child's environment. bin/hl.mjs reads it at its first
 * line (and removes it, so it names no one to the child's own children).
 */
export const SUPERVISOR_PID_ENV = "HL_SUPERVISOR_PID";

/**
 * Starts `node entry …args` as a supervised child that stops when this process dies: in its own
 * process group (so it can be paused and stopped as a whole), with an IPC channel whose closing tells
 * it we are gone, and our pid in its environment. The pid covers what the channel cannot: a parent
 * killed before the child's first line ran, whose channel closed while Node was still loading the
 * entry (Node then drops the channel before any code of ours can watch it).
 */
export function spawnSupervised(
  entry: string,
  args: string[],
  o: { env: NodeJS.ProcessEnv; output: "inherit" | "ignore" | "pipe" | number },
): ChildProcess {
  return spawn(process.execPath, [entry, ...args], {
    env: { ...o.env, [SUPERVISOR_PID_ENV]: String(process.pid) },
    stdio: ["ignore", o.output, o.output, "ipc"],
    detached: true,
  });
}

/**
 * Runs a one-off `hl` command (`hl up`'s builder approval) as a supervised child to its end, so it
 * too stops if we die. Rejects with its last line on stderr (or how it ended) when it fails, and
 * SIGTERMs it after `timeoutMs`.
 */
export function runSupervised(
  entry: string,
  args: string[],
  o: { env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawnSupervised(entry, args, { env: o.env, output: "pipe" });
    let stderr = "";
    child.stdout?.resume();
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill("SIGTERM"), o.timeoutMs);
    child.once("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve();
      reject(
        new Error(stderr.trim().split("\n").at(-1) || (signal ? `killed by ${signal}` : `exit ${code}`)),
      );
    });
  });
}
