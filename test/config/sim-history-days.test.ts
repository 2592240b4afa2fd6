import { afterEach, describe, expect, it } from "vitest";
import { simHistoryDays } from "../../src/config/env.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";

const DAY_MS = 86_400_000;

describe("HL_SIM_HISTORY_DAYS", () => {
  it("defaults to 30 days and accepts whole days from 0 to 365", () => {
    expect(simHistoryDays({})).toBe(30);
    expect(simHistoryDays({ HL_SIM_HISTORY_DAYS: "" })).toBe(30);
    expect(simHistoryDays({ HL_SIM_HISTORY_DAYS: "0" })).toBe(0);
    expect(simHistoryDays({ HL_SIM_HISTORY_DAYS: "365" })).toBe(365);
  });

  it.each(["-1", "1.5", "abc", "366"])("refuses %s with one readable line", (raw) => {
    expect(() => simHistoryDays({ HL_SIM_HISTORY_DAYS: raw })).toThrow(
      `HL_SIM_HISTORY_DAYS must be a whole number of days (0-365), got "${raw}"`,
    );
  });

  let world: SimWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it("sets how far back a fresh world's candles go", async () => {
    const before = process.env.HL_SIM_HISTORY_DAYS;
    process.env.HL_SIM_HISTORY_DAYS = "2";
    try {
      world = await startSimWorld({ seed: 3 });
    } finally {
      if (before === undefined) delete process.env.HL_SIM_HISTORY_DAYS;
      else process.env.HL_SIM_HISTORY_DAYS = before;
    }
    const now = Date.now();
    const res = await fetch(`${world.url}/info`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        type: "candleSnapshot",
        req: { coin: "BTC", interval: "1h", startTime: now - 10 * DAY_MS, endTime: now },
      }),
    });
    const candles = (await res.json()) as { t: number }[];
    expect(candles.length).toBeGreaterThan(40);
    const first = candles[0]!.t;
    expect(first).toBeGreaterThanOrEqual(now - 2 * DAY_MS - 2 * 3_600_000);
    expect(first).toBeLessThan(now - 2 * DAY_MS + 2 * 3_600_000);
  });
});
