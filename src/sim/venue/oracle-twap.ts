/**
 * A market's oracle price averaged over the last hour, from the venue's 5-second samples: what
 * Hyperliquid settles a delisted perp at ("the 1 hour time weighted spot oracle price before the
 * scheduled delisting voting time", docs: Trading > Delisting). Samples are summed per minute in a
 * ring of 60 minutes, so the memory is fixed whatever the market's age.
 */
const MINUTE_MS = 60_000;
const WINDOW_MINUTES = 60;

export class OracleTwap {
  private readonly minutes = new Array<number>(WINDOW_MINUTES).fill(-1);
  private readonly sums = new Array<number>(WINDOW_MINUTES).fill(0);
  private readonly counts = new Array<number>(WINDOW_MINUTES).fill(0);

  /** `n` samples of the oracle `px` (price scale) taken up to sim time `t`. */
  add(t: number, px: number, n: number): void {
    const minute = Math.floor(t / MINUTE_MS);
    const k = minute % WINDOW_MINUTES;
    if (this.minutes[k] !== minute) {
      this.minutes[k] = minute;
      this.sums[k] = 0;
      this.counts[k] = 0;
    }
    this.sums[k]! += px * n;
    this.counts[k]! += n;
  }

  /** The average of the samples of the hour before `now` (price scale, rounded), or undefined without any. */
  average(now: number): number | undefined {
    const last = Math.floor(now / MINUTE_MS);
    let sum = 0;
    let n = 0;
    for (let k = 0; k < WINDOW_MINUTES; k++) {
      const minute = this.minutes[k]!;
      if (minute > last - WINDOW_MINUTES && minute <= last) {
        sum += this.sums[k]!;
        n += this.counts[k]!;
      }
    }
    return n > 0 ? Math.round(sum / n) : undefined;
  }
}
