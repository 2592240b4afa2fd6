import { describe, expect, it } from "vitest";
import { ALICE, BTC, T0, testVenue } from "./helpers.ts";

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
