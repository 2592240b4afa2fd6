/**
 * Hyperliquid's nonce rule, per signer (docs, "Nonces and API wallets"): the exchange keeps the 20
 * highest nonces of an address, one more per 1M USDC of cumulative volume, at most 100. A new nonce
 * must lie within a day of the block time, must not be one of those kept, and once as many are kept
 * as the address is allowed it must exceed the smallest.
 */
const BASE_KEPT = 20;
const MOST_KEPT = 100;
const VOLUME_PER_EXTRA_USD = 1_000_000;
const WINDOW_MS = 24 * 3600 * 1000;

/** How many nonces the exchange keeps for an address that traded `volumeUsd` in all. */
export function noncesKept(volumeUsd: number): number {
  return Math.min(MOST_KEPT, BASE_KEPT + Math.floor(Math.max(0, volumeUsd) / VOLUME_PER_EXTRA_USD));
}

/** What a NonceBook saves: each signer's kept nonces, ascending. */
export type NonceSnapshot = Record<string, number[]>;

export class NonceBook {
  /** signer (lowercase) → accepted nonces, ascending, at most MOST_KEPT. */
  private readonly bySigner = new Map<string, number[]>();

  static restore(snap: NonceSnapshot): NonceBook {
    const book = new NonceBook();
    for (const [signer, nonces] of Object.entries(snap)) {
      const clean = nonces.filter((n) => Number.isSafeInteger(n)).sort((a, b) => a - b);
      book.bySigner.set(signer.toLowerCase(), clean.slice(-MOST_KEPT));
    }
    return book;
  }

  snapshot(): NonceSnapshot {
    return Object.fromEntries([...this.bySigner].map(([k, v]) => [k, [...v]]));
  }

  /**
   * Why `nonce` is refused for `signer` at sim time `nowMs`, or undefined when it is acceptable.
   * With `wallMs`, a nonce inside the window around the wall clock is also in time: SDK clients take
   * nonces from Date.now(), which falls behind a sim clock that runs fast or was advanced. `kept` is
   * how many nonces the address may keep (noncesKept of its volume).
   */
  refusal(
    signer: string,
    nonce: number,
    nowMs: number,
    wallMs?: number,
    kept = BASE_KEPT,
  ): string | undefined {
    const inWindow = (t: number) => nonce > t - WINDOW_MS && nonce < t + WINDOW_MS;
    if (!Number.isSafeInteger(nonce) || !(inWindow(nowMs) || (wallMs !== undefined && inWindow(wallMs)))) {
      return `Invalid nonce: ${nonce} is outside the allowed window (now - 1 day, now + 1 day) at time ${nowMs}`;
    }
    const seen = this.bySigner.get(signer.toLowerCase());
    if (!seen) return undefined;
    if (binarySearch(seen, nonce) >= 0) return `Invalid nonce: duplicate nonce ${nonce}`;
    const smallestKept = seen[Math.max(0, seen.length - kept)];
    if (seen.length >= kept && smallestKept !== undefined && nonce < smallestKept) {
      return `Invalid nonce: ${nonce} is lower than the smallest of the last ${kept} nonces (${smallestKept})`;
    }
    return undefined;
  }

  /** Remember an accepted nonce (call only after `refusal` returned undefined). */
  record(signer: string, nonce: number, kept = BASE_KEPT): void {
    const key = signer.toLowerCase();
    let seen = this.bySigner.get(key);
    if (!seen) {
      seen = [];
      this.bySigner.set(key, seen);
    }
    const at = binarySearch(seen, nonce);
    if (at >= 0) return;
    seen.splice(-at - 1, 0, nonce);
    const keep = Math.min(MOST_KEPT, Math.max(BASE_KEPT, kept));
    if (seen.length > keep) seen.splice(0, seen.length - keep);
  }
}

/** Index of `x` in ascending `xs`, or −(insertion point) − 1. */
function binarySearch(xs: number[], x: number): number {
  let lo = 0;
  let hi = xs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = xs[mid]!;
    if (v === x) return mid;
    if (v < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return -lo - 1;
}
