import { closeSync, fstatSync, fsyncSync, mkdirSync, openSync, readSync, writeSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Append whole lines to a log file in one write, fsynced. If a crash left the file ending mid-line, the
 * fragment is first closed with a newline, so it stays one bad line instead of swallowing the next
 * good record too.
 */
export function appendLines(path: string, lines: readonly string[]): void {
  if (lines.length === 0) return;
  mkdirSync(dirname(path), { recursive: true });
  const text = lines.map((l) => `${l}\n`).join("");
  const fd = openSync(path, "a");
  try {
    writeSync(fd, endsMidLine(path) ? `\n${text}` : text);
    // On disk before the caller goes on: a line written then lost to a crash could be journaled twice.
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function endsMidLine(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return false; // no file yet
  }
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } finally {
    closeSync(fd);
  }
}
