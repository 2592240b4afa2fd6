import { describe, expect, it } from "vitest";
import { ALICE, BOB, BTC, T0, testVenue } from "./helpers.ts";

describe("scheduleCancel as the exchange limits it", () => {
  it("refuses a time less than 5 s ahead with the exchange's text", () => {
    const t = testVenue({ scheduleCancelAnyVolume: true });
    expect(t.ex(ALICE, { type: "scheduleCancel", time: T0 + 4_999 })).toEqual({
      status: "err",
      response: "Scheduled cancel time too early, must be at least 5 seconds from now.",
    });
    expect(t.ex(ALICE, { type: "scheduleCancel", time: T0 + 5_000 }).status).toBe("ok");
  });

  it("fires at most 10 times a UTC day; the count resets at 00:00 UTC", () => {
    const t = testVenue({ scheduleCancelAnyVolume: true });
    for (let i = 0; i < 10; i++) {
      t.order(ALICE, { a: BTC, b: true, p: "90000", s: "0.01" });
      expect(t.ex(ALICE, { type: "scheduleCancel", time: t.clock.now + 5_000 }).status).toBe("ok");
      t.clock.now += 5_000;
      t.venue.advance(t.clock.now);
      expect(t.venue.info({ type: "openOrders", user: ALICE })).toEqual([]);
    }
    expect(t.ex(ALICE, { type: "scheduleCancel", time: t.clock.now + 60_000 })).toEqual({
      status: "err",
      response: "Too many scheduled cancels triggered for the day. Limit is 10.",
    });
    // Disarming stays possible.
    expect(t.ex(ALICE, { type: "scheduleCancel" }).status).toBe("ok");
    t.clock.now = T0 + 86_400_000;
    t.venue.advance(t.clock.now);
    expect(t.ex(ALICE, { type: "scheduleCancel", time: t.clock.now + 60_000 }).status).toBe("ok");
  });
});

describe("scheduleCancel's volume gate", () => {
  const gate = (traded: string) =>
    `Cannot set scheduled cancel time until enough volume traded. Required: $1000000. Traded: $${traded}.`;

  it("refuses arming and disarming until the account has traded $1,000,000, with the exchange's text", () => {
    const t = testVenue({ balance: "10000000" });
    expect(t.ex(ALICE, { type: "scheduleCancel", time: T0 + 60_000 })).toEqual({
      status: "err",
      response: gate("0"),
    });
    expect(t.ex(ALICE, { type: "scheduleCancel" })).toEqual({ status: "err", response: gate("0") });
    // 10 BTC at 97000 = $970,000 traded (each side counts its own volume).
    t.order(BOB, { a: BTC, b: false, p: "97000", s: "10" });
    t.order(ALICE, { a: BTC, b: true, p: "97000", s: "10" });
    expect(t.ex(ALICE, { type: "scheduleCancel", time: T0 + 60_000 })).toEqual({
      status: "err",
      response: gate("970000"),
    });
    t.order(BOB, { a: BTC, b: true, p: "97000", s: "0.31" });
    t.order(ALICE, { a: BTC, b: false, p: "97000", s: "0.31" });
    expect(t.ex(ALICE, { type: "scheduleCancel", time: T0 + 60_000 }).status).toBe("ok");
  });

  it("the venue option waives the gate for tests", () => {
    const t = testVenue({ scheduleCancelAnyVolume: true });
    expect(t.ex(ALICE, { type: "scheduleCancel", time: T0 + 60_000 }).status).toBe("ok");
  });

  it("a fired switch cancels trigger orders too (they are open orders)", () => {
    const t = testVenue({ scheduleCancelAnyVolume: true });
    t.order(BOB, { a: BTC, b: false, p: "97000", s: "0.1" });
    t.order(ALICE, { a: BTC, b: true, p: "97000", s: "0.1" });
    t.order(ALICE, {
      a: BTC,
      b: false,
      p: "90000",
      s: "0.1",
      r: true,
      t: { trigger: { isMarket: true, triggerPx: "95000", tpsl: "sl" } },
    });
    expect(t.ex(ALICE, { type: "scheduleCancel", time: T0 + 10_000 }).status).toBe("ok");
    t.venue.advance(T0 + 10_000);
    expect(t.venue.info({ type: "openOrders", user: ALICE })).toEqual([]);
    expect(t.venue.info({ type: "orderStatus", user: ALICE, oid: 3 })).toMatchObject({
      order: { status: "scheduledCancel" },
    });
  });
});
