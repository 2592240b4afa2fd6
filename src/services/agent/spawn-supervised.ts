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
