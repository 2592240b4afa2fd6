/** Deterministic 32-byte transaction hashes from (seed, sequence number): no randomness, no clock. */

function mix32(x: number): number {
  let h = x | 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Two hex digits per byte value: every fill and trade the sim answers with carries a hash, so it is hot. */
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

export function txHash(seed: number, seq: number): `0x${string}` {
  let out = "0x";
  let h = mix32(seed ^ 0x9e3779b9);
  const lo = seq >>> 0;
  const hi = Math.floor(seq / 4294967296) >>> 0;
  for (let k = 0; k < 8; k++) {
    h = mix32(h ^ mix32(lo + Math.imul(k, 0x27d4eb2d)) ^ mix32(hi + k));
    out += HEX[h >>> 24]! + HEX[(h >>> 16) & 255]! + HEX[(h >>> 8) & 255]! + HEX[h & 255]!;
  }
  return out as `0x${string}`;
}
