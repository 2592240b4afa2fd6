import { describe, expect, it } from "vitest";
import type { VenueEvent } from "../../../src/sim/venue.ts";
import { ALICE, BOB, BTC, testVenue } from "./helpers.ts";

/** Who an event is about: its user for account events, its coin for market events. */
function subjects(events: VenueEvent[]): string[] {
  return events.map((e) => `${e.kind}:${"user" in e ? e.user : "coin" in e ? e.coin : e.dex}`);
}

describe("venue subscriptions with an interest", () => {
  it("render only the account and market events some subscriber wants", () => {
    const t = testVenue();
    t.state(ALICE);
    t.state(BOB);
    const events: VenueEvent[] = [];
    const off = t.venue.subscribe((e) => events.push(e), {
      user: (u) => u === ALICE,
      coin: () => false,
    });
    t.order(BOB, { a: BTC, b: false, p: "97000", s: "0.01" });
    // Bob's resting order is nobody's business: only the book and the mids changed.
    expect(subjects(events)).toEqual(["l2Book:BTC", "allMids:"]);
    events.length = 0;
    t.order(ALICE, { a: BTC, b: true, p: "97000", s: "0.01" });
    const seen = subjects(events);
    expect(seen).toContain(`userFills:${ALICE}`);
    expect(seen).toContain(`orderUpdates:${ALICE}`);
    expect(seen.some((s) => s.endsWith(BOB))).toBe(false);
    expect(seen.some((s) => s.startsWith("trades:") || s.startsWith("candle:"))).toBe(false);
    events.length = 0;
    t.venue.deposit(BOB, "5");
    t.venue.deposit(ALICE, "5");
    expect(subjects(events)).toEqual([`ledger:${ALICE}`]);
    off();
  });

  it("a subscriber without an interest still gets every event", () => {
    const t = testVenue();
    t.state(ALICE);
    t.state(BOB);
    const narrow: VenueEvent[] = [];
    const all: VenueEvent[] = [];
    const offNarrow = t.venue.subscribe((e) => narrow.push(e), { user: () => false, coin: () => false });
    const offAll = t.venue.subscribe((e) => all.push(e));
    t.order(BOB, { a: BTC, b: false, p: "97000", s: "0.01" });
    t.order(ALICE, { a: BTC, b: true, p: "97000", s: "0.01" });
    const seen = subjects(all);
    for (const s of [
      `userFills:${ALICE}`,
      `userFills:${BOB}`,
      `orderUpdates:${BOB}`,
      "trades:BTC",
      "candle:BTC",
    ])
      expect(seen).toContain(s);
    offAll();
    narrow.length = 0;
    t.order(BOB, { a: BTC, b: false, p: "97000", s: "0.01" });
    expect(subjects(narrow)).toEqual(["l2Book:BTC", "allMids:"]);
    offNarrow();
  });
});
