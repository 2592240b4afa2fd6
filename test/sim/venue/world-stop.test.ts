import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address } from "../../../src/sim/venue.ts";
import { type SimWorld, startSimWorld } from "../../../src/sim/world.ts";
import { SOL } from "./helpers.ts";

const TRADER: Address = "0x5eed000000000000000000000000000000000024";
let world: SimWorld;
beforeAll(async () => {
  world = await startSimWorld({ seed: 24, historyDays: 0, liveCoins: ["SOL"] });
});
afterAll(async () => {
  await world.close();
});

describe("a resting stop in the running world (house makers, /sim/price)", () => {
  it("a price gap fires the stop on the mark and fills it no better than that mark", () => {
    const v = world.venue;
    v.deposit(TRADER, "100000");
    const mid = () => Number((v.info({ type: "allMids" }) as Record<string, string>).SOL);
    const px0 = mid();
    const buy = v.exchange(
      {
        type: "order",
        orders: [
          { a: SOL, b: true, p: (px0 * 1.01).toFixed(2), s: "10", r: false, t: { limit: { tif: "Ioc" } } },
        ],
        grouping: "na",
      },
      TRADER,
      1,
    );
    expect(JSON.stringify(buy)).toContain("filled");
    const trigger = (px0 * 0.97).toFixed(2);
    const stop = v.exchange(
      {
        type: "order",
        orders: [
          {
            a: SOL,
            b: false,
            p: (px0 * 0.9).toFixed(2),
            s: "0",
            r: true,
            t: { trigger: { isMarket: true, triggerPx: trigger, tpsl: "sl" } },
          },
        ],
        grouping: "positionTpsl",
      },
      TRADER,
      2,
    );
    expect(stop).toMatchObject({ status: "ok", response: { data: { statuses: ["waitingForTrigger"] } } });
    // A 5 % gap: the oracle moves first, the house requotes after it.
    const gapped = (px0 * 0.95).toFixed(2);
    world.setPrice("SOL", gapped);
    const state = v.info({ type: "clearinghouseState", user: TRADER }) as { assetPositions: unknown[] };
    expect(state.assetPositions).toEqual([]);
    const fills = v.info({ type: "userFills", user: TRADER }) as { px: string; dir: string }[];
    const close = fills.find((f) => f.dir === "Close Long")!;
    expect(Number(close.px)).toBeLessThanOrEqual(Number(gapped));
    expect(Number(close.px)).toBeGreaterThan(px0 * 0.9);
  });
});
