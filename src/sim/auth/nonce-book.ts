/**
 * Hyperliquid's nonce rule, per signer: the exchange remembers the 100 highest nonces it has
 * accepted; a new nonce must lie in (now − 2 days, now + 1 day), must not be one of them, and once
 * 100 are remembered it must exceed the smallest.
 */
const REMEMBERED = 100;
const MAX_AGE_MS = 2 * 24 * 3600 * 1000;
const MAX_LEAD_MS = 24 * 3600 * 1000;

export class NonceBook {
  /** signer (lowercase) → accepted nonces, ascending, at most REMEMBERED. */
  private readonly bySigner = new Map<string, number[]>();

  /**
   * Why `nonce` is refused for `signer` at sim time `nowMs`, or undefined when it is acceptable.
   * With `wallMs`, a nonce inside the window around the wall clock is also in time: SDK clients take
   * nonces from Date.now(), which falls behind a sim clock that runs fast or was advanced.
   */
  refusal(signer: string, nonce: number, nowMs: number, wallMs?: number): string | undefined {
    const inWindow = (t: number) => nonce > t - MAX_AGE_MS && nonce < t + MAX_LEAD_MS;
    if (!Number.isSafeInteger(nonce) || !(inWindow(nowMs) || (wallMs !== undefined && inWindow(wallMs)))) {
      return `Invalid nonce: ${nonce} is outside the allowed window (now - 2 days, now + 1 day) at time ${nowMs}`;
    }
    const seen = this.bySigner.get(signer.toLowerCase());
    if (!seen) return undefined;
    if (binarySearch(seen, nonce) >= 0) return `Invalid nonce: duplicate nonce ${nonce}`;
    if (seen.length >= REMEMBERED && nonce < seen[0]!) {
      return `Invalid nonce: ${nonce} is lower than the smallest of the last ${REMEMBERED} nonces (${seen[0]})`;
    }
    return undefined;
  }

  /** Remember an accepted nonce (call only after `refusal` returned undefined). */
  record(signer: string, nonce: number): void {
    const key = signer.toLowerCase();
    let seen = this.bySigner.get(key);
    if (!seen) {
      seen = [];
      this.bySigner.set(key, seen);
    }
    const at = binarySearch(seen, nonce);
    if (at >= 0) return;
    seen.splice(-at - 1, 0, nonce);
    if (seen.length > REMEMBERED) seen.shift();
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
