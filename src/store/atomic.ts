import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { dirname } from "node:path";

/** Write a file atomically: temp file in the same directory, fsync, rename. */
export function writeFileAtomic(path: string, data: string, mode = 0o644): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  const fd = openSync(tmp, "w", mode);
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

export function writeJsonAtomic(path: string, value: unknown, mode = 0o644): void {
  writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`, mode);
}

export type JsonRead<T> = { kind: "missing" } | { kind: "ok"; value: T } | { kind: "corrupt"; error: string };

/** Read a JSON file; a corrupt file is reported, never silently treated as empty. */
export function readJson<T>(path: string): JsonRead<T> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { kind: "missing" };
    throw e;
  }
  try {
    return { kind: "ok", value: JSON.parse(text) as T };
  } catch (e) {
    return { kind: "corrupt", error: (e as Error).message };
  }
}

/** Move a corrupt file aside (kept for inspection) and return its new path. */
export function quarantine(path: string): string {
  const aside = `${path}.corrupt-${Date.now()}`;
  renameSync(path, aside);
  return aside;
}
