import { accessSync, constants } from "node:fs";
import { tmpdir } from "node:os";

/**
 * Where throw-away files go: memory-backed /dev/shm where there is one, since every state save is
 * fsynced (durable on purpose live, pure cost for files removed at the end), else the system's temp
 * directory.
 */
export function scratchRoot(): string {
  try {
    accessSync("/dev/shm", constants.W_OK);
    return "/dev/shm";
  } catch {
    return tmpdir();
  }
}
