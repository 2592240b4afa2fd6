import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { freePort } from "./postgres.ts";

/** deploy/haproxy.cfg: the balancer compose.postgres.yaml runs, here run by the tests as it is. */
export const HAPROXY_CFG = join(import.meta.dirname, "../../deploy/haproxy.cfg");

/** Every frontend of deploy/haproxy.cfg: its address variables are LB_<NAME>_BIND, LB_<NAME>_1, _2. */
const FRONTENDS = [
  "leaderboard",
  "feeds",
  "btcswp",
  "hypeswp",
  "ethcswp",
  "spcxswp",
  "isfr",
  "points",
] as const;
export type Frontend = (typeof FRONTENDS)[number];

/** A running HAProxy: one loopback URL per frontend it balances, and its statistics. */
export interface Haproxy {
  url(frontend: Frontend): string;
  /** Each server's state as HAProxy sees it (`/stats;csv`), keyed `backend/server`. */
  servers(): Promise<Map<string, ServerStats>>;
  /** What it printed (its log: one line per request, and each server going up or down). */
  readonly output: string[];
  close(): Promise<void>;
}

export interface ServerStats {
  /** UP, DOWN, or a transition ("UP 1/2"). */
  status: string;
  /** The last health check's result (L7OK, L4CON …) and the HTTP status it got. */
  checkStatus: string;
  checkCode: string;
}

/** The haproxy binary: $HAPROXY, else the first on PATH or in the sbin directories Debian uses. */
export function haproxyBinary(env: NodeJS.ProcessEnv = process.env): string {
  const dirs = [...(env.PATH ?? "").split(delimiter), "/usr/sbin", "/usr/local/sbin", "/sbin"];
  const candidates = env.HAPROXY ? [env.HAPROXY] : dirs.filter(Boolean).map((d) => join(d, "haproxy"));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new Error(
    "haproxy is not installed: this test runs the real balancer of compose.postgres.yaml " +
      "(apt-get install haproxy; .ci/run installs it), or set HAPROXY to its path",
  );
}

/**
 * Start HAProxy in the foreground from deploy/haproxy.cfg, every frontend on a free loopback port:
 * `backends` gives the replicas' URLs of the frontends under test; the others point at a closed port
 * (their servers are simply down). `checkInterMs` replaces the health-check interval (3 s in compose).
 */
export async function startHaproxy(
  backends: Partial<Record<Frontend, readonly [string, string]>>,
  opts: { checkInterMs?: number } = {},
): Promise<Haproxy> {
  const binary = haproxyBinary();
  // A free port may be taken by another process before HAProxy binds it: then it exits; try anew.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(binary, backends, opts);
    } catch (err) {
      if (attempt >= 3 || !(err instanceof Error && /cannot bind|Address already in use/i.test(err.message)))
        throw err;
    }
  }
}

async function startOnce(
  binary: string,
  backends: Partial<Record<Frontend, readonly [string, string]>>,
  opts: { checkInterMs?: number },
): Promise<Haproxy> {
  const ports = new Map<Frontend | "stats", number>();
  const env: Record<string, string> = {
    LB_CHECK_INTER: `${opts.checkInterMs ?? 3000}ms`,
    // Replicas are addressed by IP here: nothing to resolve, no Docker DNS to ask.
    LB_DNS: "127.0.0.1:1",
  };
  for (const name of ["stats", ...FRONTENDS] as const) {
    const port = await freePort();
    ports.set(name, port);
    env[`LB_${name.toUpperCase()}_BIND`] = `127.0.0.1:${port}`;
  }
  for (const name of FRONTENDS) {
    const servers = backends[name]?.map((u) => new URL(u).host) ?? ["127.0.0.1:1", "127.0.0.1:1"];
    env[`LB_${name.toUpperCase()}_1`] = servers[0]!;
    env[`LB_${name.toUpperCase()}_2`] = servers[1]!;
  }
  const output: string[] = [];
  const proc: ChildProcess = spawn(binary, ["-db", "-f", HAPROXY_CFG], {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
  for (const stream of [proc.stdout!, proc.stderr!])
    stream.on("data", (d: Buffer) => output.push(...d.toString().split("\n").filter(Boolean)));

  const statsUrl = `http://127.0.0.1:${ports.get("stats")}/stats;csv`;
  const servers = async (): Promise<Map<string, ServerStats>> => {
    const csv = await (await fetch(statsUrl)).text();
    const [header, ...rows] = csv.trim().split("\n");
    const columns = header!.replace(/^# /, "").split(",");
    const at = (name: string) => columns.indexOf(name);
    const result = new Map<string, ServerStats>();
    for (const row of rows.map((r) => r.split(","))) {
      if (row[at("svname")] === "FRONTEND" || row[at("svname")] === "BACKEND") continue;
      result.set(`${row[at("pxname")]}/${row[at("svname")]}`, {
        status: row[at("status")]!,
        checkStatus: row[at("check_status")]!,
        checkCode: row[at("check_code")]!,
      });
    }
    return result;
  };

  // Ready when its statistics answer; an exit first (a port taken meanwhile, a config error) fails.
  const deadline = Date.now() + 10_000;
  for (;;) {
    const early = await Promise.race([exited, new Promise((r) => setTimeout(() => r("running"), 50))]);
    if (early !== "running") throw new Error(`haproxy exited ${early}: ${output.join("\n")}`);
    if (
      await servers().then(
        () => true,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`haproxy did not answer in 10 s: ${output.join("\n")}`);
    }
  }

  return {
    url: (frontend) => `http://127.0.0.1:${ports.get(frontend)}`,
    servers,
    output,
    async close() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill("SIGTERM");
      await exited;
    },
  };
}
