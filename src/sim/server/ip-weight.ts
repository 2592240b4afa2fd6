/** The exchange's REST weight per minute per IP ("Rate limits and user limits", Hyperliquid docs). */
export const IP_WEIGHT_PER_MINUTE = 1200;

const SLOTS = 60;
const SLOT_MS = 1000;
/** Addresses kept before the idle ones are forgotten. */
const MAX_ADDRESSES = 10_000;

/** Weight per second of the last minute, a ring indexed by second. */
interface Window {
  weight: number[];
  /** The second each slot holds; a slot from an older second counts as empty. */
  second: number[];
}

/**
 * Hyperliquid's per-IP REST limit: every request's weight (`requestWeight`, plus `responseWeight`
 * once the answer's size is known) is counted against the client's source address, which may spend
 * `weightPerMinute` in any 60 s. The docs say only "1200 per minute"; a sliding window is the
 * stricter reading (a refilling bucket would let a full start plus a minute's refill through, up to
 * twice the limit), and a rehearsal must not be kinder than the exchange. One-second resolution,
 * as `/sim/weight` reports the last minute.
 */
export class IpWeightLimiter {
  private readonly windows = new Map<string, Window>();

  constructor(
    readonly weightPerMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!(weightPerMinute > 0)) throw new RangeError("weightPerMinute must be positive");
  }

  /** Spend `weight` for `address`; false (nothing spent) when the last 60 s leave no room for it. */
  take(address: string, weight: number): boolean {
    const second = this.second();
    const w = this.window(address, second);
    if (spent(w, second) + weight > this.weightPerMinute) return false;
    w.weight[slot(w, second)]! += weight;
    return true;
  }

  /** Weight owed after answering (per items returned): may take the address past its limit. */
  charge(address: string, weight: number): void {
    if (!(weight > 0)) return;
    const second = this.second();
    const w = this.window(address, second);
    w.weight[slot(w, second)]! += weight;
  }

  /** Seconds until enough of the window has aged out for `weight` (at least 1, at most 60). */
  retryAfterSeconds(address: string, weight: number): number {
    const second = this.second();
    if (weight > this.weightPerMinute) return SLOTS;
    const w = this.windows.get(address);
    if (!w) return 1;
    let left = spent(w, second);
    for (let k = 1; k < SLOTS; k++) {
      // After k seconds, the slot of second (now − 60 + k) has left the window.
      const leaving = second - SLOTS + k;
      const i = mod(leaving);
      if (w.second[i] === leaving) left -= w.weight[i]!;
      if (left + weight <= this.weightPerMinute) return k;
    }
    return SLOTS;
  }

  private second(): number {
    return Math.floor(this.now() / SLOT_MS);
  }

  private window(address: string, second: number): Window {
    let w = this.windows.get(address);
    if (!w) {
      if (this.windows.size >= MAX_ADDRESSES) this.sweep(second);
      w = {
        weight: new Array<number>(SLOTS).fill(0),
        second: new Array<number>(SLOTS).fill(Number.NEGATIVE_INFINITY),
      };
      this.windows.set(address, w);
    }
    return w;
  }

  /** Forget addresses that spent nothing in the last 60 s: memory follows active clients only. */
  private sweep(second: number): void {
    for (const [k, w] of this.windows) if (spent(w, second) === 0) this.windows.delete(k);
  }
}

function mod(second: number): number {
  return ((second % SLOTS) + SLOTS) % SLOTS;
}

/** Weight in the window ending at `second` (that second and the 59 before it). */
function spent(w: Window, second: number): number {
  let sum = 0;
  for (let i = 0; i < SLOTS; i++) if (second - w.second[i]! < SLOTS) sum += w.weight[i]!;
  return sum;
}

/** The ring slot of `second`, emptied if it last held an older second. */
function slot(w: Window, second: number): number {
  const i = mod(second);
  if (w.second[i] !== second) {
    w.second[i] = second;
    w.weight[i] = 0;
  }
  return i;
}
