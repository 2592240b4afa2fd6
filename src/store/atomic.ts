import {
  closeSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";

/** A complete, fsynced temp file beside `path`, for renaming or linking into place. */
function writeTemp(path: string, data: string | Uint8Array, mode: number): string {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2, 8)}.tmp`;
  const fd = openSync(tmp, "w", mode);
  try {
    // writeSync has one overload for text and one for bytes.
    if (typeof data === "string") writeSync(fd, data);
    else writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return tmp;
}

/** Write a file atomically: temp file in the same directory, fsync, rename, fsync the directory. */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o644): void {
  renameSync(writeTemp(path, data, mode), path);
  syncDir(dirname(path));
}

/** Make a rename in `dir` durable (without it a crash can bring the old file back). */
function syncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Create `path` with `data` only if it does not exist, atomically: the content is written whole to a
 * temp file and linked into place (link() refuses an existing name), so a reader never sees a partial
 * file and of two creators exactly one wins. Returns false when the file already existed.
 */
export function createFileExclusive(path: string, data: string, mode = 0o644): boolean {
  const tmp = writeTemp(path, data, mode);
  try {
    linkSync(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  } finally {
    unlinkSync(tmp);
  }
}

export function writeJsonAtomic(path: string, value: unknown, mode = 0o644): void {
  writeFileAtomic(path, `${JSON.stringify(value, null, 2)}\n`, mode);
}

type JsonRead<T> = { kind: "missing" } | { kind: "ok"; value: T } | { kind: "corrupt"; error: string };

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
