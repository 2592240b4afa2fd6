import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

export const ROOT = join(import.meta.dirname, "../..");

/** Resident set size of one process, in MB (0 once it is gone). */
export function rssMb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
    return kb === undefined ? 0 : Number(kb) / 1024;
  } catch {
    return 0;
  }
}

/** Builds dist/ when it is missing or older than a source file, so the figures are of today's code. */
export function ensureBuilt(): void {
  const stamp = join(ROOT, "dist/BUILD_STAMP");
  const built = existsSync(stamp) ? Number(readFileSync(stamp, "utf8")) : 0;
  const stale = readdirSync(join(ROOT, "src"), { recursive: true, withFileTypes: true }).some(
    (e) => e.isFile() && statSync(join(e.parentPath, e.name)).mtimeMs > built,
  );
  if (stale) execFileSync(process.execPath, [join(ROOT, "scripts/build.mjs")], { stdio: "inherit" });
}

export function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
