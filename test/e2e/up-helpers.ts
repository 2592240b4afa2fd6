import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { UpPorts } from "../../src/services/up/config.ts";
import { freeUpPorts as freeUpPortRun, upPortFlags } from "../../src/services/up/ports.ts";

/** `hl up` started as a user would (`node bin/hl.mjs up`), on free ports and a temp data dir. */

export const HL = join(import.meta.dirname, "../../bin/hl.mjs");

export type { UpPorts };

/** Eleven consecutive free loopback ports for `hl up` (the feeds need five in a row), from a random base. */
export const freeUpPorts = (): Promise<UpPorts> => freeUpPortRun("127.0.0.1");

/** The user's environment without anything that would point `hl up` elsewhere. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of [
    "PORT",
    "LEADERBOARD_PORT",
    "MCP_PORT",
    "FEEDS_PORT",
    "ISFR_PORT",
    "POINTS_PORT",
    "SIM_PORT",
    "HL_API_URL",
    "HL_NETWORK",
    "HL_PRIVATE_KEY",
    "DATA_DIR",
    // The sim world's limits stay as on the exchange: everything `hl up` runs shares one address.
    "HL_SIM_LIMITS",
    "HL_RATE_WEIGHT_PER_MIN",
    "HL_WEIGHT_BROKER",
  ])
    delete env[k];
  return env;
}

export interface RunningUp {
  child: ChildProcess;
  ports: UpPorts;
  dataDir: string;
  url: (service: keyof UpPorts) => string;
  output: () => string;
  exited: Promise<number | null>;
}

export async function startUp(extra: string[] = [], env: Record<string, string> = {}): Promise<RunningUp> {
  const ports = await freeUpPorts();
  const dataDir = mkdtempSync(join(tmpdir(), "hl-up-"));
  const child = spawn(process.execPath, [HL, "up", "--data-dir", dataDir, ...upPortFlags(ports), ...extra], {
    env: { ...cleanEnv(), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (b: Buffer) => {
    out += b.toString();
  });
  child.stderr!.on("data", (b: Buffer) => {
    out += b.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    ports,
    dataDir,
    url: (service) => `http://127.0.0.1:${ports[service]}`,
    output: () => out,
    exited,
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** GET JSON, or undefined when the service does not answer 200 (yet). */
export async function getJson<T = Record<string, unknown>>(url: string): Promise<T | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
    if (!res.ok) {
      await res.body?.cancel();
      return undefined;
    }
    return (await res.json()) as T;
  } catch {
    return undefined;
  }
}

/** Poll until `check` returns a value (not undefined/false) or the deadline passes. */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  deadlineMs: number,
  everyMs = 500,
): Promise<T> {
  let last: T | undefined | false;
  while (Date.now() < deadlineMs) {
    last = await check();
    if (last !== undefined && last !== false) return last;
    await sleep(everyMs);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Every descendant pid of `pid` (children, grandchildren, …) from one `ps` listing. */
export function descendants(pid: number): number[] {
  const text = execFileSync("ps", ["-e", "-o", "pid=,ppid="], { encoding: "utf8" });
  const kids = new Map<number, number[]>();
  for (const line of text.trim().split("\n")) {
    const [c, p] = line.trim().split(/\s+/).map(Number);
    if (c === undefined || p === undefined) continue;
    kids.set(p, [...(kids.get(p) ?? []), c]);
  }
  const out: number[] = [];
  const stack = [pid];
  while (stack.length > 0) {
    for (const c of kids.get(stack.pop()!) ?? []) {
      out.push(c);
      stack.push(c);
    }
  }
  return out;
}

/** Running (a zombie awaiting its reaper is not). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/**
 * The pids still running after up to `graceMs`: helper processes (e.g. esbuild's transform service
 * under tsx) exit a moment after their parent closes their pipe, so survivors are judged after that.
 */
export async function survivors(pids: number[], graceMs = 5_000): Promise<number[]> {
  const end = Date.now() + graceMs;
  let alive = pids.filter(isAlive);
  while (alive.length > 0 && Date.now() < end) {
    await sleep(100);
    alive = alive.filter(isAlive);
  }
  return alive;
}

/** SIGINT like Ctrl-C, then wait for exit; SIGKILL the tree if it hangs (so a failing test leaves nothing). */
export async function stopUp(up: RunningUp, timeoutMs = 45_000): Promise<number | null> {
  if (up.child.exitCode !== null) return up.child.exitCode;
  const tree = descendants(up.child.pid!);
  up.child.kill("SIGINT");
  const timer = setTimeout(() => {
    for (const pid of [up.child.pid!, ...tree]) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
  }, timeoutMs);
  const code = await up.exited;
  clearTimeout(timer);
  return code;
}

/** The `hl` command each pid runs (the words after bin/hl.mjs), for the pids that run one. */
export function hlCommands(pids: number[]): string[] {
  return pids.flatMap((pid) => {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
      const at = argv.findIndex((a) => a.endsWith("hl.mjs"));
      return at < 0 ? [] : [argv.slice(at + 1, at + 3).join(" ")];
    } catch {
      return [];
    }
  });
}
