const SECOND_MS = 1000;

/**
 * What was added over the last `seconds` whole seconds (default 60): the current second and the
 * ones before it, at one-second resolution. One slot per second in a ring; a slot last written in
 * an older second counts as empty and is emptied when its second comes round again. The exchange's
 * per-minute limits (request weight, new connections, messages) are read as such a sliding window.
 */
export class MinuteWindow {
  readonly seconds: number;
  private readonly amounts: Float64Array;
  /** The second each slot holds (−∞: never written). */
  private readonly stamps: Float64Array;

  constructor(seconds = 60) {
    if (!(Number.isInteger(seconds) && seconds > 0))
      throw new RangeError("seconds must be a positive integer");
    this.seconds = seconds;
    this.amounts = new Float64Array(seconds);
    this.stamps = new Float64Array(seconds).fill(Number.NEGATIVE_INFINITY);
  }

  /** Adds `n` to the second of `nowMs` (an add of 0 still marks the window as used). */
  add(n: number, nowMs: number): void {
    const second = Math.floor(nowMs / SECOND_MS);
    const i = this.slotOf(second);
    if (this.stamps[i] !== second) {
      this.stamps[i] = second;
      this.amounts[i] = 0;
    }
    this.amounts[i]! += n;
  }

  /** The sum added over the window ending at `nowMs`. */
  total(nowMs: number): number {
    const second = Math.floor(nowMs / SECOND_MS);
    const { seconds, stamps, amounts } = this;
    let sum = 0;
    for (let i = 0; i < seconds; i++) if (second - stamps[i]! < seconds) sum += amounts[i]!;
    return sum;
  }

  /** Nothing was added (not even 0) over the window ending at `nowMs`: it may be forgotten. */
  idle(nowMs: number): boolean {
    const second = Math.floor(nowMs / SECOND_MS);
    for (let i = 0; i < this.seconds; i++) if (second - this.stamps[i]! < this.seconds) return false;
    return true;
  }

  /**
   * Whole seconds after the current one until the window's total, as it ages out with nothing more
   * added, first satisfies `fits`: 0 when it does now, `seconds` when only an empty window would (at
   * that point everything added so far has left). `fits` sees the total after each second's slot
   * leaves, e.g. `(left) => left + weight <= capacity` for "when is there room for `weight`".
   */
  secondsUntil(fits: (total: number) => boolean, nowMs: number): number {
    const second = Math.floor(nowMs / SECOND_MS);
    let left = this.total(nowMs);
    for (let k = 0; k < this.seconds; k++) {
      if (k > 0) {
        // At second + k, the slot of second + k − seconds has left the window.
        const leaving = second + k - this.seconds;
        const i = this.slotOf(leaving);
        if (this.stamps[i] === leaving) left -= this.amounts[i]!;
      }
      if (fits(left)) return k;
    }
    return this.seconds;
  }

  private slotOf(second: number): number {
    const i = second % this.seconds;
    return i < 0 ? i + this.seconds : i;
  }
}
