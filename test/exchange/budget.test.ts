import { describe, expect, it } from "vitest";
import {
  RateBudget,
  requestWeight,
  responseWeight,
  sharedRateBudget,
  type WeightBudget,
} from "../../src/exchange/budget.ts";

/** A clock that only moves when the budget sleeps. */
function fakeClock() {
  let now = 0;
  const sleeps: number[] = [];
  return {
    now: () => now,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
    advance: (ms: number) => {
      now += ms;
    },
    sleeps,
  };
}

/** A clock whose sleeps resolve in time order, so several loops can share one budget on fake time. */
function eventClock() {
  let now = 0;
  const timers: { at: number; wake: () => void }[] = [];
  const settle = () => new Promise((r) => setImmediate(r));
  return {
    now: () => now,
    settle,
    sleep: (ms: number) => new Promise<void>((wake) => timers.push({ at: now + Math.max(ms, 0), wake })),
    async runUntil(endMs: number) {
      for (;;) {
        await settle();
        timers.sort((a, b) => a.at - b.at);
        const next = timers[0];
        if (!next || next.at > endMs) return;
        timers.shift();
        now = next.at;
        next.wake();
      }
    },
  };
}

describe("RateBudget", () => {
  it("a scan in the background gets what the ticks leave, and a tick never waits behind it", async () => {
    // hl up's WOLF: 350 a minute; a tick reads 10 weight every 10 s while its first scan reads
    // candle series of 20 back to back.
    const clock = eventClock();
    const budget = new RateBudget({
      weightPerMinute: 350,
      reserveShare: 0.2,
      now: clock.now,
      sleep: clock.sleep,
    });
    const end = 300_000;
    const tickWaits: number[] = [];
    const scanAt: number[] = [];
    const ticks = (async () => {
      while (clock.now() < end) {
        const asked = clock.now();
        await budget.take(10);
        tickWaits.push(clock.now() - asked);
        await clock.sleep(10_000);
      }
    })();
    const scan = (async () => {
      while (clock.now() < end) {
        await budget.take(20, { background: true });
        scanAt.push(clock.now());
      }
    })();
    await clock.runUntil(end + 120_000);
    await Promise.all([ticks, scan]);
    expect(Math.max(...tickWaits)).toBeLessThanOrEqual(1_000);
    // Minutes 1 to 5: 350 less the ticks' 60, the reserve's 70 and a margin for the ticks.
    const steady = scanAt.filter((t) => t >= 60_000 && t < end).length * 20;
    expect(steady / 4).toBeGreaterThanOrEqual(170);
  });

  it("background reads stop a margin short of the minute, and the others never queue behind them", async () => {
    const clock = eventClock();
    const budget = new RateBudget({ weightPerMinute: 1200, now: clock.now, sleep: clock.sleep });
    // A scan's candle reads: 54 of 20 go at once, leaving a tenth of the minute (nothing else has spent yet).
    let done = 0;
    const scan = Array.from({ length: 60 }, () => budget.take(20, { background: true }).then(() => done++));
    await clock.settle();
    expect(done).toBe(54);
    expect(budget.available()).toBe(120);
    // A tick's price read goes out at once, ahead of the candle reads still waiting.
    await budget.take(2);
    expect(budget.available()).toBe(118);
    expect(clock.now()).toBe(0);
    await clock.runUntil(200_000);
    await Promise.all(scan);
    expect(clock.now()).toBeGreaterThanOrEqual(60_000);
  });

  it("spends at most its per-minute weight in its first minute, and in any 60 s after", async () => {
    const clock = fakeClock();
    const budget = new RateBudget({ weightPerMinute: 1200, now: clock.now, sleep: clock.sleep });
    const spentAt: number[] = [];
    while (clock.now() < 180_000) {
      await budget.take(20);
      spentAt.push(clock.now());
    }
    const inWindow = (from: number) => spentAt.filter((t) => t >= from && t < from + 60_000).length * 20;
    expect(inWindow(0)).toBeLessThanOrEqual(1200);
    for (const from of spentAt) expect(inWindow(from)).toBeLessThanOrEqual(1200);
    // Still a minute's weight a minute over the long run.
    expect(spentAt.length * 20).toBeGreaterThanOrEqual(3 * 1200);
  });

  it("spends without waiting while weight is available", async () => {
    const clock = fakeClock();
    const budget = new RateBudget({ weightPerMinute: 1200, now: clock.now, sleep: clock.sleep });
    for (let i = 0; i < 60; i++) await budget.take(20);
    expect(clock.sleeps).toEqual([]);
    expect(budget.available()).toBe(0);
  });

  it("waits until enough spent weight has left the window (60 s, and a second for transit)", async () => {
    const clock = fakeClock();
    const budget = new RateBudget({ weightPerMinute: 1200, now: clock.now, sleep: clock.sleep });
    await budget.take(600);
    clock.advance(30_000);
    await budget.take(600);
    await budget.take(20); // the first 600 leave at 61 s
    expect(clock.sleeps).toEqual([31_000]);
    await budget.take(600); // 580 free until the second 600 leave at 91 s
    expect(clock.now()).toBe(91_000);
  });

  it("frees spent weight as it ages out, never beyond its capacity", async () => {
    const clock = fakeClock();
    const budget = new RateBudget({ weightPerMinute: 600, now: clock.now, sleep: clock.sleep });
    await budget.take(600);
    clock.advance(30_000);
    expect(budget.available()).toBe(0);
    clock.advance(31_000);
    expect(budget.available()).toBe(600);
    clock.advance(10 * 60_000);
    expect(budget.available()).toBe(600);
  });

  it("serves waiters in arrival order", async () => {
    const clock = fakeClock();
    const budget = new RateBudget({ weightPerMinute: 60, now: clock.now, sleep: clock.sleep });
    await budget.take(60);
    const order: number[] = [];
    await Promise.all([1, 2, 3].map((n) => budget.take(20).then(() => order.push(n))));
    expect(order).toEqual([1, 2, 3]);
    expect(clock.now()).toBe(61_000);
  });

  it("counts post-hoc charges as debt that delays the next request", async () => {
    const clock = fakeClock();
    const budget = new RateBudget({ weightPerMinute: 1200, now: clock.now, sleep: clock.sleep });
    await budget.take(100);
    clock.advance(30_000);
    await budget.take(1100);
    budget.charge(100); // 1300 in the window: the first 100 leaving at 61 s is not enough
    await budget.take(2);
    expect(clock.now()).toBe(91_000);
  });

  it("a waiter given up (a run stopping) leaves at once, spends nothing and leaves no timer to keep the process up", async () => {
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
    const budget = new RateBudget({ weightPerMinute: 100 });
    budget.charge(100);
    const before = timers();
    const stop = new AbortController();
    const waiting = budget.take(20, { signal: stop.signal });
    const outcome = waiting.then(
      () => "granted",
      () => "given up",
    );
    await new Promise((r) => setImmediate(r));
    stop.abort();
    expect(await outcome).toBe("given up");
    await new Promise((r) => setImmediate(r));
    // Its minute-long sleep is cleared: a stopped process exits instead of waiting it out.
    expect(timers()).toBe(before);
    expect(budget.available()).toBe(0);
  });

  it("clamps a request heavier than the whole bucket instead of waiting forever", async () => {
    const clock = fakeClock();
    const budget = new RateBudget({ weightPerMinute: 10, now: clock.now, sleep: clock.sleep });
    await budget.take(500);
    expect(budget.available()).toBe(0);
  });
});

describe("request weights (Hyperliquid's documented table)", () => {
  it.each([
    ["l2Book", 2],
    ["allMids", 2],
    ["clearinghouseState", 2],
    ["orderStatus", 2],
    ["spotClearinghouseState", 2],
    ["exchangeStatus", 2],
    ["userRole", 60],
    ["meta", 20],
    ["userFills", 20],
    ["candleSnapshot", 20],
  ])("info %s weighs %d", (type, weight) => {
    expect(requestWeight("info", { type })).toBe(weight);
  });

  it("weighs exchange actions 1 + floor(batch / 40)", () => {
    const orders = (n: number) => ({
      action: { type: "order", orders: Array.from({ length: n }, () => ({})) },
    });
    expect(requestWeight("exchange", orders(1))).toBe(1);
    expect(requestWeight("exchange", orders(39))).toBe(1);
    expect(requestWeight("exchange", orders(40))).toBe(2);
    expect(requestWeight("exchange", orders(85))).toBe(3);
    expect(requestWeight("exchange", { action: { type: "cancel", cancels: new Array(80).fill({}) } })).toBe(
      3,
    );
    expect(requestWeight("exchange", { action: { type: "updateLeverage" } })).toBe(1);
  });

  it("charges extra per 20 items of fill/funding answers and per 60 candles", () => {
    expect(responseWeight("info", { type: "userFills" }, new Array(2000).fill({}))).toBe(100);
    expect(responseWeight("info", { type: "fundingHistory" }, new Array(39).fill({}))).toBe(1);
    expect(responseWeight("info", { type: "candleSnapshot" }, new Array(120).fill({}))).toBe(2);
    expect(responseWeight("info", { type: "allMids" }, {})).toBe(0);
  });
});

/** The size of a process's own budget (what sharedRateBudget makes without a weight broker). */
function capacityOf(budget: WeightBudget): number {
  expect(budget).toBeInstanceOf(RateBudget);
  return (budget as RateBudget).capacity;
}

describe("sharedRateBudget", () => {
  it("is one budget per API server within the process, sized by HL_RATE_WEIGHT_PER_MIN", () => {
    const a = sharedRateBudget("http://127.0.0.1:1/a", { HL_RATE_WEIGHT_PER_MIN: "600" });
    expect(sharedRateBudget("http://127.0.0.1:1/a")).toBe(a);
    expect(capacityOf(a)).toBe(600);
    const b = sharedRateBudget("https://api.example.test/b", {});
    expect(b).not.toBe(a);
    expect(capacityOf(b)).toBe(1200);
    expect(
      capacityOf(sharedRateBudget("https://api.example.test/c", { HL_RATE_WEIGHT_PER_MIN: "nonsense" })),
    ).toBe(1200);
  });

  it("gives a server on this machine (the sim world) a budget that does not throttle paper ticks", () => {
    expect(capacityOf(sharedRateBudget("http://127.0.0.1:9/sim", {}))).toBe(120_000);
    expect(capacityOf(sharedRateBudget("http://localhost:9/sim", {}))).toBe(120_000);
    expect(capacityOf(sharedRateBudget("http://127.0.0.1:9/sim2", { HL_RATE_WEIGHT_PER_MIN: "300" }))).toBe(
      300,
    );
  });
});
