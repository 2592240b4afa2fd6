import { describe, expect, it } from "vitest";
import { txHash } from "../../../src/sim/venue/hash.ts";

describe("sim transaction hashes", () => {
  it("are the same 32 bytes for the same (seed, sequence number) as ever: saved worlds and replays keep their hashes", () => {
    // Values of the first implementation (each 32-bit word written with toString(16), zero-padded).
    expect(txHash(1, 1)).toBe("0xacac074bd289479098455859fe9af5b19227e1ba7bf8cf99d578e816391ffc5c");
    expect(txHash(11, 2)).toBe("0x16f6d7a9481503debc39e2aa8a86e26be5c3ac543cd8171e8d0b332d78f08401");
    expect(txHash(0, 0)).toBe("0xaa3e5b612cbfc44cdeb8f9abd75077e2a90db4a91e7c481c5696e68ae410ef85");
    expect(txHash(5, 2 ** 32 + 7)).toBe("0x7fba746495082f0ee3cd1f1c7e8b930df51d22109d71b9defe2d68375d940a41");
  });

  it("are 64 lowercase hex digits, distinct across sequence numbers and seeds", () => {
    const seen = new Set<string>();
    for (const seed of [1, 2, 0x7fffffff])
      for (let seq = 0; seq < 2000; seq++) {
        const h = txHash(seed, seq);
        expect(h).toMatch(/^0x[0-9a-f]{64}$/);
        seen.add(h);
      }
    expect(seen.size).toBe(6000);
  });
});
