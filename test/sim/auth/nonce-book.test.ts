import { describe, expect, it } from "vitest";
import { NonceBook, noncesKept } from "../../../src/sim/auth/nonce-book.ts";

const NOW = 1_800_000_000_000;
const DAY = 86_400_000;

describe("NonceBook (Hyperliquid's nonce rule)", () => {
  it("accepts fresh nonces and refuses a repeat", () => {
    const book = new NonceBook();
    expect(book.refusal("0xA", NOW, NOW)).toBeUndefined();
    book.record("0xA", NOW);
    expect(book.refusal("0xa", NOW, NOW)).toBe(`Invalid nonce: duplicate nonce ${NOW}`);
    expect(book.refusal("0xb", NOW, NOW)).toBeUndefined();
  });

  it("keeps the 20 highest nonces of an address with no volume: below the smallest of them is refused", () => {
    const book = new NonceBook();
    for (let i = 0; i < 20; i++) book.record("0xa", NOW + 1000 + i);
    expect(book.refusal("0xa", NOW + 999, NOW)).toMatch(/lower than the smallest/);
    expect(book.refusal("0xa", NOW + 1000.5, NOW)).toMatch(/outside the allowed window/);
    expect(book.refusal("0xa", NOW + 1010, NOW)).toMatch(/duplicate/);
    expect(book.refusal("0xa", NOW + 2000, NOW)).toBeUndefined();
    book.record("0xa", NOW + 2000);
    // The smallest (NOW+1000) is forgotten; it is now below the new smallest NOW+1001.
    expect(book.refusal("0xa", NOW + 1000, NOW)).toMatch(/lower than the smallest/);
  });

  it("keeps one more per $1M of the account's volume, at most 100", () => {
    expect(noncesKept(0)).toBe(20);
    expect(noncesKept(999_999)).toBe(20);
    expect(noncesKept(1_000_000)).toBe(21);
    expect(noncesKept(79_500_000)).toBe(99);
    expect(noncesKept(5e9)).toBe(100);
    const book = new NonceBook();
    const kept = noncesKept(30_000_000);
    for (let i = 0; i < 50; i++) book.record("0xa", NOW + 1000 + i, kept);
    // 50 kept: the 30 oldest are still remembered, so an older unused nonce is fine until then.
    expect(book.refusal("0xa", NOW + 999, NOW, undefined, kept)).toMatch(/lower than the smallest/);
    expect(book.refusal("0xa", NOW + 500, NOW, undefined, 100)).toBeUndefined();
  });

  it("with fewer than the kept number remembered, an older unused nonce is still fine", () => {
    const book = new NonceBook();
    book.record("0xa", NOW + 10);
    expect(book.refusal("0xa", NOW + 5, NOW)).toBeUndefined();
  });

  it("refuses nonces more than a day from now, either way (current docs: within 1 day of the block time)", () => {
    const book = new NonceBook();
    expect(book.refusal("0xa", NOW - DAY, NOW)).toMatch(/outside the allowed window/);
    expect(book.refusal("0xa", NOW - DAY + 1, NOW)).toBeUndefined();
    expect(book.refusal("0xa", NOW + DAY, NOW)).toMatch(/outside the allowed window/);
    expect(book.refusal("0xa", NOW + DAY - 1, NOW)).toBeUndefined();
  });

  it("also accepts nonces near the wall clock when the sim clock has run ahead", () => {
    const book = new NonceBook();
    const sim = NOW + 10 * DAY;
    expect(book.refusal("0xa", NOW, sim)).toMatch(/outside the allowed window/);
    expect(book.refusal("0xa", NOW, sim, NOW)).toBeUndefined();
    expect(book.refusal("0xa", NOW - 3 * DAY, sim, NOW)).toMatch(/outside the allowed window/);
  });

  it("carries its nonces through a snapshot, so a restart does not forget them", () => {
    const book = new NonceBook();
    book.record("0xa", NOW + 1);
    book.record("0xb", NOW + 2);
    const again = NonceBook.restore(JSON.parse(JSON.stringify(book.snapshot())));
    expect(again.refusal("0xa", NOW + 1, NOW)).toMatch(/duplicate/);
    expect(again.refusal("0xb", NOW + 2, NOW)).toMatch(/duplicate/);
    expect(again.refusal("0xb", NOW + 3, NOW)).toBeUndefined();
  });
});
