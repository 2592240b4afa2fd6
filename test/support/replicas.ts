import { type ChildProcess, spawn } from "node:child_process";
import { migrate } from "../../src/db/migrate.ts";
import { createPool } from "../../src/db/pool.ts";
import { openSharedDb, type SharedDb } from "../../src/db/shared.ts";
import { HL } from "../e2e/up-helpers.ts";

/** Apply the migrations to a fresh test database. */
export async function migrated(url: string): Promise<void> {
  const pool = createPool(url);
  try {
    await migrate(pool);
  } finally {
    await pool.end();
  }
}

/** One replica's pool and LISTEN connection, named `replica-<i>` in the lease table. */
export function replicaDb(url: string, i: number, leaseMs?: number): Promise<SharedDb> {
  return openSharedDb(url, { replica: `replica-${i}`, leaseMs, log: () => undefined });
}

/**
 * Start a real `hl … serve` replica; `url` resolves with the first capture of `announce` in its
 * output (its listening URL), and rejects if the process exits first. `stderr` collects its log
 * lines as they come.
 */
export function spawnReplica(
  args: string[],
  env: Record<string, string>,
  announce: RegExp,
): { proc: ChildProcess; url: Promise<string>; stderr: string[] } {
  const stderr: string[] = [];
  const proc = spawn(process.execPath, [HL, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const url = new Promise<string>((resolve, reject) => {
    let out = "";
    const scan = (d: Buffer) => {
      out += d.toString();
      const m = announce.exec(out);
      if (m) resolve(m[1]!);
    };
    let partial = "";
    proc.stdout!.on("data", scan);
    proc.stderr!.on("data", (d: Buffer) => {
      scan(d);
      const lines = (partial + d.toString()).split("\n");
      partial = lines.pop() ?? "";
      stderr.push(...lines.filter((l) => l !== ""));
    });
    proc.on("exit", (code) => reject(new Error(`hl ${args.slice(0, 2).join(" ")} exited ${code}: ${out}`)));
  });
  return { proc, url, stderr };
}
