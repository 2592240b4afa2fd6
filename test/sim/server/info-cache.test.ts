import { describe, expect, it } from "vitest";
import { InfoCache } from "../../../src/sim/server/info-cache.ts";
import type { Venue, VenueEvent } from "../../../src/sim/venue.ts";

/** A venue that only publishes the events the test pushes. */
function fakeVenue(): { venue: Venue; emit(e: VenueEvent): void } {
  const listeners: ((e: VenueEvent) => void)[] = [];
  const venue = {
    subscribe(fn: (e: VenueEvent) => void) {
      listeners.push(fn);
      return () => listeners.splice(listeners.indexOf(fn), 1);
    },
  } as unknown as Venue;
  return {
    venue,
    emit(e) {
      for (const l of listeners) l(e);
    },
  };
}

const BOOK = { type: "l2Book", coin: "BTC" };
const BOOK_TEXT = JSON.stringify(BOOK);

describe("InfoCache", () => {
  it("answers a request text it has seen with the stored bytes, without parsing it", () => {
    const { venue } = fakeVenue();
    const cache = new InfoCache(venue, 250, () => 1000);
    expect(cache.lookupText(BOOK_TEXT)).toBeUndefined();
    cache.set(InfoCache.keyOf(BOOK)!, BOOK, '{"coin":"BTC"}', BOOK_TEXT);
    const hit = cache.lookupText(BOOK_TEXT);
    expect(hit?.bytes.toString()).toBe('{"coin":"BTC"}');
    expect(hit?.headers).toEqual(expect.arrayContaining(["Content-Length", "14"]));
  });

  it("a differently written request for the same answer finds it through its key and is then known by text", () => {
    const { venue } = fakeVenue();
    const cache = new InfoCache(venue, 250, () => 1000);
    const key = InfoCache.keyOf(BOOK)!;
    cache.set(key, BOOK, "{}", BOOK_TEXT);
    const spaced = '{ "type": "l2Book", "coin": "BTC" }';
    expect(cache.lookupText(spaced)).toBeUndefined();
    expect(cache.get(key, spaced)?.bytes.toString()).toBe("{}");
    expect(cache.lookupText(spaced)?.bytes.toString()).toBe("{}");
  });

  it("forgets an answer by text as soon as its book changes", () => {
    const { venue, emit } = fakeVenue();
    const cache = new InfoCache(venue, 250, () => 1000);
    cache.set(InfoCache.keyOf(BOOK)!, BOOK, "{}", BOOK_TEXT);
    const mids = { type: "allMids" };
    cache.set(InfoCache.keyOf(mids)!, mids, "{}", JSON.stringify(mids));
    emit({ kind: "l2Book", coin: "ETH" });
    expect(cache.lookupText(BOOK_TEXT)).toBeDefined();
    emit({ kind: "l2Book", coin: "BTC" });
    expect(cache.lookupText(BOOK_TEXT)).toBeUndefined();
    expect(cache.lookupText(JSON.stringify(mids))).toBeDefined();
    emit({ kind: "allMids", dex: "" });
    expect(cache.lookupText(JSON.stringify(mids))).toBeUndefined();
  });

  it("forgets an answer by text once it is older than the ttl", () => {
    const { venue } = fakeVenue();
    let now = 1000;
    const cache = new InfoCache(venue, 250, () => now);
    cache.set(InfoCache.keyOf(BOOK)!, BOOK, "{}", BOOK_TEXT);
    now += 250;
    expect(cache.lookupText(BOOK_TEXT)).toBeDefined();
    now += 1;
    expect(cache.lookupText(BOOK_TEXT)).toBeUndefined();
  });

  it("keeps a bounded number of request texts, whatever clients send", () => {
    const { venue } = fakeVenue();
    const cache = new InfoCache(venue, 250, () => 1000);
    const key = InfoCache.keyOf(BOOK)!;
    for (let i = 0; i < 5000; i++) cache.set(key, BOOK, "{}", `${" ".repeat(i)}${BOOK_TEXT}`);
    expect(cache.textCount).toBeLessThanOrEqual(InfoCache.MAX_TEXTS);
  });
});
