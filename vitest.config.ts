import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Every `hl` a test starts runs the current TypeScript sources, never a build of older ones.
    // Sim worlds backfill 9 days (enough for the scanner's 50 four-hour bars), not 30: each start is
    // then ~3× quicker. A test about the full past asks for it with `historyDays`.
    env: { HL_FROM_SOURCE: "1", HL_SIM_HISTORY_DAYS: "9" },
  },
});
