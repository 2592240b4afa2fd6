import { describe, expect, it } from "vitest";
import { NonceBook } from "../../../src/sim/auth/nonce-book.ts";

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

  it("accepts out-of-order nonces until 100 are remembered, then only those above the smallest", () => {
    const book = new NonceBook();
    for (let i = 0; i < 100; i++) book.record("0xa", NOW + 1000 + i);
    expect(book.refusal("0xa", NOW + 999, NOW)).toMatch(/lower than the smallest/);
    expect(book.refusal("0xa", NOW + 1000.5, NOW)).toMatch(/outside the allowed window/);
    expect(book.refusal("0xa", NOW + 1050, NOW)).toMatch(/duplicate/);
    expect(book.refusal("0xa", NOW + 2000, NOW)).toBeUndefined();
    book.record("0xa", NOW + 2000);
    // The smallest (NOW+1000) is forgotten; NOW+1000 is now below the new smallest NOW+1001.
    expect(book.refusal("0xa", NOW + 1000, NOW)).toMatch(/lower than the smallest/);
  });

  it("with fewer than 100 remembered, an older unused nonce is still fine", () => {
    const book = new NonceBook();
    book.record("0xa", NOW + 10);
    expect(book.refusal("0xa", NOW + 5, NOW)).toBeUndefined();
  });

  it("refuses nonces outside (now - 2 days, now + 1 day)", () => {
    const book = new NonceBook();
    expect(book.refusal("0xa", NOW - 2 * DAY, NOW)).toMatch(/outside the allowed window/);
    expect(book.refusal("0xa", NOW - 2 * DAY + 1, NOW)).toBeUndefined();
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
});
