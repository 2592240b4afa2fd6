import { describe, expect, it } from "vitest";
import { ALICE, BOB, ETH, T0, testVenue } from "./helpers.ts";

describe("history pagination", () => {
  it("returns at most 2000 fills per response: userFills newest first, userFillsByTime ascending from startTime", () => {
    const t = testVenue({ balance: "100000000" });
    for (let i = 0; i < 2100; i++) {
      t.clock.now = T0 + i * 1000;
      t.order(BOB, { a: ETH, b: i % 2 === 0, p: "3400", s: "0.01" });
      t.order(ALICE, { a: ETH, b: i % 2 !== 0, p: "3400", s: "0.01" });
    }
    const recent = t.venue.info({ type: "userFills", user: ALICE }) as { time: number }[];
    expect(recent).toHaveLength(2000);
    expect(recent[0]!.time).toBe(T0 + 2099_000);
    const page1 = t.venue.info({ type: "userFillsByTime", user: ALICE, startTime: T0 }) as { time: number }[];
    expect(page1).toHaveLength(2000);
    expect(page1[0]!.time).toBe(T0);
    expect(page1[1999]!.time).toBe(T0 + 1999_000);
    const page2 = t.venue.info({
      type: "userFillsByTime",
      user: ALICE,
      startTime: page1[1999]!.time + 1,
    }) as { time: number }[];
    expect(page2).toHaveLength(100);
    const window = t.venue.info({
      type: "userFillsByTime",
      user: ALICE,
      startTime: T0 + 10_000,
      endTime: T0 + 19_999,
    }) as unknown[];
    expect(window).toHaveLength(10);
  });

  it("skips funding hours missed by a jump longer than a week instead of replaying them", () => {
    const t = testVenue();
    t.venue.advance(T0 + 1000 * 3_600_000);
    expect(t.venue.info({ type: "fundingHistory", coin: "SOL", startTime: 0 })).toHaveLength(1);
  });

  it("pages funding history 500 at a time", () => {
    const t = testVenue();
    for (let h = 100; h <= 600; h += 100) t.venue.advance(T0 + h * 3_600_000);
    const page = t.venue.info({ type: "fundingHistory", coin: "SOL", startTime: 0 }) as { time: number }[];
    expect(page).toHaveLength(500);
    const next = t.venue.info({
      type: "fundingHistory",
      coin: "SOL",
      startTime: page[499]!.time + 1,
    }) as unknown[];
    expect(next).toHaveLength(100);
  });
});
