import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { scratchRoot } from "../../src/store/scratch-root.ts";

/**
 * Fresh directories for tests whose code saves state and appends (with fsync) on every tick; the
 * code under test is unchanged, only its disk is faster. `cleanup` removes them all (they take memory).
 */
export function scratchDirs() {
  const made: string[] = [];
  const root = scratchRoot();
  return {
    make(prefix: string): string {
      const dir = mkdtempSync(join(root, prefix));
      made.push(dir);
      return dir;
    },
    cleanup(): void {
      for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
  };
}
