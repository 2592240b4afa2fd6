import { beforeEach, describe, expect, it, vi } from "vitest";

const setFlagsFromString = vi.fn();
vi.mock("node:v8", async (importOriginal) => ({
  ...(await importOriginal<typeof import("node:v8")>()),
  setFlagsFromString,
}));

const { SIM_SERVER_V8_FLAGS, tuneSimServerGc } = await import("../../../src/sim/server/gc-tuning.ts");

describe("tuneSimServerGc", () => {
  beforeEach(() => setFlagsFromString.mockClear());

  it("makes the young-generation collection run on the main thread alone", () => {
    tuneSimServerGc();
    expect(SIM_SERVER_V8_FLAGS).toContain("--no-parallel-scavenge");
    expect(setFlagsFromString.mock.calls.map((c) => c[0])).toEqual([...SIM_SERVER_V8_FLAGS]);
  });
});
