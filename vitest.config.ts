import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that take longest (measured: 10–50 s each, mostly waiting on processes they start) go
 * first, a process-heavy e2e file beside an in-process one, so none of them starts last and holds the
 * run open; the rest keep vitest's own order (a fresh clone has no timings for it to sort by).
 */
const SLOW_FIRST = [
  "test/e2e/up.test.ts",
  "test/engine/sim-run.test.ts",
  "test/e2e/browser.test.ts",
  "test/engine/chaos.test.ts",
  "test/e2e/wolf-run.test.ts",
  "test/static.test.ts",
  "test/e2e/run-strategy.test.ts",
  "test/runtime/dockerfile.test.ts",
  "test/e2e/sim-trade.test.ts",
  "test/e2e/up-split.test.ts",
  "test/e2e/",
];

class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const path = f.moduleId.replaceAll("\\", "/");
      const i = SLOW_FIRST.findIndex((p) => path.includes(`/${p}`));
      return i < 0 ? SLOW_FIRST.length : i;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    // Three files at a time on two cores: much of an e2e file is waiting on the processes it started
    // (the whole suite: 256 s with three, 300 s with two, on a quiet 2-core machine).
    maxWorkers: 3,
    sequence: { sequencer: SlowFirst },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Every `hl` a test starts runs what users run: the compiled build (`npm ci` builds it), or the
    // TypeScript sources when any source file is newer than the build (bin/hl.mjs), never a stale build.
    // Sim worlds backfill 9 days (enough for the scanner's 50 four-hour bars), not 30: each start is
    // then ~3× quicker. A test about the full past asks for it with `historyDays`.
    env: { HL_SIM_HISTORY_DAYS: "9" },
    // Structured log lines of in-process services are collected, and checked when each file ends.
    setupFiles: ["test/support/log-guard.ts"],
  },
});
