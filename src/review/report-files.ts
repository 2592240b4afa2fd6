import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileStamp } from "./time.ts";

/**
 * A new, unused report path `<dir>/<UTC stamp><ext>`; two runs in the same second get `-2`, `-3`…
 * so no report ever overwrites another.
 */
export function freshReportPath(dir: string, nowMs: number, ext: string): string {
  const stamp = fileStamp(nowMs);
  let path = join(dir, `${stamp}${ext}`);
  for (let n = 2; existsSync(path); n++) path = join(dir, `${stamp}-${n}${ext}`);
  return path;
}

/** Timestamped report files in a directory, newest first (names sort chronologically). */
export function listReports(dir: string, ext: string, exclude: readonly string[] = []): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(ext) && /^\d{4}-\d{2}-\d{2}-\d{6}/.test(f) && !exclude.includes(f))
    .sort(compareStampNames)
    .reverse();
}

/** Order stamp names so `X-10` sorts after `X-9` and the bare `X` first. */
function compareStampNames(a: string, b: string): number {
  const key = (f: string) => {
    const m = /^(\d{4}-\d{2}-\d{2}-\d{6})(?:-(\d+))?/.exec(f)!;
    return [m[1]!, Number(m[2] ?? 1)] as const;
  };
  const [sa, na] = key(a);
  const [sb, nb] = key(b);
  return sa < sb ? -1 : sa > sb ? 1 : na - nb;
}
