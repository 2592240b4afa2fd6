import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Every `hl` a test starts runs the current TypeScript sources, never a build of older ones.
    env: { HL_FROM_SOURCE: "1" },
  },
});
