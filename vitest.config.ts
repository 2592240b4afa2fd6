import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    // Three files at a time on two cores: much of an e2e file is waiting on the processes it started
    // (the whole suite: 256 s with three, 300 s with two, on a quiet 2-core machine).
    maxWorkers: 3,
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
