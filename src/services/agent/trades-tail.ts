import { closeSync, fstatSync, openSync, readSync } from "node:fs";

const CHUNK_BYTES = 64 * 1024;
/** However long the lines, a request never reads more than this from the end of the file. */
const MAX_TAIL_BYTES = 8 * 1024 * 1024;

/**
 * The last `limit` JSON lines of a JSONL file, oldest first, reading backwards from the end only as
 * far as those lines go: trades.jsonl grows without bound, a request's cost must not. A line cut by a
 * crash mid-append (or any unparsable line) is skipped; a missing file is no trades.
 */
export function lastJsonLines(path: string, limit: number): unknown[] {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  try {
    const chunks: Buffer[] = [];
    let pos = fstatSync(fd).size;
    let newlines = 0;
    let scanned = 0;
    // limit lines need limit+1 line breaks to be whole; one more tolerates a cut last line
    while (pos > 0 && newlines < limit + 2 && scanned < MAX_TAIL_BYTES) {
      const length = Math.min(CHUNK_BYTES, pos);
      pos -= length;
      const chunk = Buffer.allocUnsafe(length);
      const read = readSync(fd, chunk, 0, length, pos);
      const got = chunk.subarray(0, read);
      scanned += read;
      for (let i = got.indexOf(10); i >= 0; i = got.indexOf(10, i + 1)) newlines++;
      chunks.unshift(got);
    }
    const lines = Buffer.concat(chunks).toString("utf8").split("\n");
    if (pos > 0) lines.shift(); // starts mid-line
    const out: unknown[] = [];
    for (const line of lines) {
      if (line.trim() === "") continue;
      try {
        out.push(JSON.parse(line));
      } catch {
        // cut or corrupt: the rest is served
      }
    }
    return out.slice(-limit);
  } finally {
    closeSync(fd);
  }
}
