import { describe, expect, it } from "vitest";
import type { SimClock } from "../../../src/sim/model/clock.ts";
import type { HouseDriver, TakerOrder } from "../../../src/sim/model/house-driver.ts";
import type { MarketModel } from "../../../src/sim/model/market-model.ts";
import { SimScheduler } from "../../../src/sim/model/scheduler.ts";

const MARKETS = 6;

/** A driver whose every unit of work takes `unitMs` of wall time, logging what ran. */
function busyDriver(log: string[], unitMs: number): HouseDriver {
  const busy = () => {
    const until = performance.now() + unitMs;
    while (performance.now() < until) {
      // a market's requote, simulated
    }
  };
  const takers: TakerOrder[] = [
    { coin: "A", isBuy: true, notionalUsd: 100 },
    { coin: "B", isBuy: false, notionalUsd: 100 },
  ];
  return {
    marketCount: MARKETS,
    syncMarkets(from: number, to: number) {
      for (let i = from; i < to; i++) {
        busy();
        log.push(`sync ${i}`);
      }
    },
    takerOrders: () => takers,
    sendTaker(o: TakerOrder) {
      busy();
      log.push(`take ${o.coin}`);
    },
  } as unknown as HouseDriver;
}

describe("sim scheduler", () => {
  it("runs a real-time step as short units in catchUp's order, letting other work in between", async () => {
    const log: string[] = [];
    const clock: SimClock = { now: () => 1_000, speed: 1, advance: () => undefined };
    let moved = false;
    // The model moves once: one step of work, then idle wake-ups.
    const model = {
      advanceTo() {
        if (moved) return 0;
        moved = true;
        return 1;
      },
    } as unknown as MarketModel;
    const scheduler = new SimScheduler(clock, model, busyDriver(log, 1), () => log.push("time"), 5);
    // A stand-in for requests: it gets a turn whenever the event loop does.
    let probing = true;
    const probe = () => {
      if (!probing) return;
      if (log.at(-1) !== "probe") log.push("probe");
      setImmediate(probe);
    };
    setImmediate(probe);
    scheduler.start();
    try {
      await expect.poll(() => log.filter((l) => l.startsWith("take")).length, { timeout: 5_000 }).toBe(2);
    } finally {
      probing = false;
      scheduler.stop();
    }
    const first = log.indexOf("sync 0");
    const last = log.indexOf("take B");
    const step = log.slice(first, last + 1);
    expect(step.filter((l) => l !== "probe")).toEqual([
      ...Array.from({ length: MARKETS }, (_, i) => `sync ${i}`),
      "time",
      "take A",
      "take B",
    ]);
    // Each unit outlasts the turn budget, so other work ran between every two of them.
    const units = step.filter((l) => l.startsWith("sync") || l.startsWith("take"));
    expect(step.filter((l) => l === "probe").length).toBeGreaterThanOrEqual(units.length - 1);
  });
});
