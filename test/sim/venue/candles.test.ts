import { describe, expect, it } from "vitest";
import { bucketStart, INTERVALS } from "../../../src/sim/venue/candle-intervals.ts";
import type { VenueEvent } from "../../../src/sim/venue.ts";
import { ALICE, BOB, BTC, T0, testVenue } from "./helpers.ts";

const MIN = 60_000;

function trade(t: ReturnType<typeof testVenue>, at: number, p: string, s = "0.01") {
  t.clock.now = at;
  t.order(BOB, { a: BTC, b: false, p, s });
  t.order(ALICE, { a: BTC, b: true, p, s });
}

describe("candles", () => {
  it("builds OHLCV from trades and carries the close through empty buckets", () => {
    const t = testVenue();
    trade(t, T0 + 5_000, "97000");
    trade(t, T0 + 20_000, "97100", "0.02");
    trade(t, T0 + 50_000, "96900");
    trade(t, T0 + 3 * MIN + 1, "97050");
    t.clock.now = T0 + 4 * MIN + 30_000;
    const candles = t.venue.info({
      type: "candleSnapshot",
      req: { coin: "BTC", interval: "1m", startTime: T0 },
    }) as Record<string, unknown>[];
    expect(candles).toEqual([
      {
        t: T0,
        T: T0 + MIN - 1,
        s: "BTC",
        i: "1m",
        o: "97000",
        c: "96900",
        h: "97100",
        l: "96900",
        v: "0.04",
        n: 3,
      },
      {
        t: T0 + MIN,
        T: T0 + 2 * MIN - 1,
        s: "BTC",
        i: "1m",
        o: "96900",
        c: "96900",
        h: "96900",
        l: "96900",
        v: "0",
        n: 0,
      },
      {
        t: T0 + 2 * MIN,
        T: T0 + 3 * MIN - 1,
        s: "BTC",
        i: "1m",
        o: "96900",
        c: "96900",
        h: "96900",
        l: "96900",
        v: "0",
        n: 0,
      },
      {
        t: T0 + 3 * MIN,
        T: T0 + 4 * MIN - 1,
        s: "BTC",
        i: "1m",
        o: "97050",
        c: "97050",
        h: "97050",
        l: "97050",
        v: "0.01",
        n: 1,
      },
      {
        t: T0 + 4 * MIN,
        T: T0 + 5 * MIN - 1,
        s: "BTC",
        i: "1m",
        o: "97050",
        c: "97050",
        h: "97050",
        l: "97050",
        v: "0",
        n: 0,
      },
    ]);
    const hourly = t.venue.info({
      type: "candleSnapshot",
      req: { coin: "BTC", interval: "1h", startTime: 0, endTime: T0 + MIN },
    }) as Record<string, unknown>[];
    expect(hourly).toEqual([
      {
        t: T0,
        T: T0 + 3_600_000 - 1,
        s: "BTC",
        i: "1h",
        o: "97000",
        c: "97050",
        h: "97100",
        l: "96900",
        v: "0.05",
        n: 4,
      },
    ]);
    const window = t.venue.info({
      type: "candleSnapshot",
      req: { coin: "BTC", interval: "1m", startTime: T0 + MIN, endTime: T0 + 2 * MIN },
    }) as unknown[];
    expect(window).toHaveLength(2);
    for (const i of INTERVALS) {
      expect(
        (
          t.venue.info({
            type: "candleSnapshot",
            req: { coin: "BTC", interval: i, startTime: 0 },
          }) as unknown[]
        ).length,
      ).toBeGreaterThan(0);
    }
    expect(() =>
      t.venue.info({ type: "candleSnapshot", req: { coin: "BTC", interval: "7m", startTime: 0 } }),
    ).toThrow();
  });

  it("aligns weeks to Monday and months to the 1st (UTC)", () => {
    const sun = Date.UTC(2026, 10, 22, 15); // a Sunday
    expect(new Date(bucketStart("1w", sun)).toISOString()).toBe("2026-11-16T00:00:00.000Z");
    expect(new Date(bucketStart("1M", sun)).toISOString()).toBe("2026-11-01T00:00:00.000Z");
    expect(new Date(bucketStart("1d", sun)).toISOString()).toBe("2026-11-22T00:00:00.000Z");
    expect(new Date(bucketStart("4h", sun)).toISOString()).toBe("2026-11-22T12:00:00.000Z");
  });

  it("emits candle, trade, fill, order, book and mid events after an action completes", () => {
    const t = testVenue();
    t.state(ALICE);
    t.state(BOB);
    const events: VenueEvent[] = [];
    const off = t.venue.subscribe((e) => events.push(e));
    t.order(BOB, { a: BTC, b: false, p: "97000", s: "0.01" });
    expect(events.map((e) => e.kind)).toEqual(["orderUpdates", "l2Book", "allMids"]);
    events.length = 0;
    t.order(ALICE, { a: BTC, b: true, p: "97000", s: "0.01" });
    const kinds = events.map((e) => e.kind);
    expect(kinds.filter((k) => k === "candle")).toHaveLength(INTERVALS.length);
    expect(kinds).toEqual(
      expect.arrayContaining(["trades", "userFills", "orderUpdates", "l2Book", "allMids"]),
    );
    const tr = events.find((e) => e.kind === "trades");
    expect(tr).toMatchObject({
      coin: "BTC",
      trades: [{ coin: "BTC", side: "B", px: "97000", sz: "0.01", users: [ALICE, BOB] }],
    });
    const fills = events.filter((e) => e.kind === "userFills");
    expect(fills.map((e) => (e as { user: string }).user).sort()).toEqual([ALICE, BOB].sort());
    events.length = 0;
    t.clock.now = T0 + 2 * MIN;
    t.venue.advance(t.clock.now);
    expect(
      events.filter((e) => e.kind === "candle").map((e) => (e as { interval: string }).interval),
    ).toEqual(["1m"]);
    events.length = 0;
    t.venue.deposit(ALICE, "5");
    expect(events).toMatchObject([
      { kind: "ledger", user: ALICE, update: { delta: { type: "deposit", usdc: "5" } } },
    ]);
    off();
    events.length = 0;
    // A subscriber that throws neither fails the action nor starves the others.
    const offBad = t.venue.subscribe(() => {
      throw new Error("boom");
    });
    const offGood = t.venue.subscribe((e) => events.push(e));
    t.venue.deposit(ALICE, "1");
    expect(events.map((e) => e.kind)).toEqual(["ledger"]);
    offBad();
    offGood();
    events.length = 0;
    t.venue.deposit(ALICE, "5");
    expect(events).toEqual([]);
  });
});
