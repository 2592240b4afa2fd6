/**
 * A rolling window of the last numbers that a strategy keeps in its state, appended without
 * copying the window every tick. The values live in a buffer shared along a chain of windows; each
 * window is [start, end) of it. Appending to the newest window (its end is the buffer's end) writes
 * past that end in place, which no older window reads; appending to any other window, or to one whose
 * buffer has grown long, copies first. So every window a caller holds keeps its values: the state
 * stays as immutable as a copied array would be.
 */
export interface Rolling {
  readonly buf: number[];
  readonly start: number;
  readonly end: number;
}

/** An empty window with a buffer of its own (a shared one would be appended to by every chain). */
export function emptyRolling(): Rolling {
  return { buf: [], start: 0, end: 0 };
}

/** The window with `x` appended, keeping the last `max` values. */
export function rollingPush(w: Rolling, x: number, max: number): Rolling {
  let buf = w.buf;
  let start = w.start;
  let end = w.end;
  if (end !== buf.length || buf.length >= 4 * max + 16) {
    buf = buf.slice(Math.max(start, end - max + 1), end);
    start = 0;
    end = buf.length;
  }
  buf.push(x);
  end += 1;
  return { buf, start: Math.max(start, end - max), end };
}

export function rollingLength(w: Rolling): number {
  return w.end - w.start;
}

/** Largest value (-Infinity when empty). */
export function rollingMax(w: Rolling): number {
  let m = Number.NEGATIVE_INFINITY;
  for (let i = w.start; i < w.end; i++) m = Math.max(m, w.buf[i]!);
  return m;
}

/** Smallest value (Infinity when empty). */
export function rollingMin(w: Rolling): number {
  let m = Number.POSITIVE_INFINITY;
  for (let i = w.start; i < w.end; i++) m = Math.min(m, w.buf[i]!);
  return m;
}

/** Mean, summed oldest first (0 when empty): the same double as summing a copied array. */
export function rollingMean(w: Rolling): number {
  if (w.end === w.start) return 0;
  let s = 0;
  for (let i = w.start; i < w.end; i++) s += w.buf[i]!;
  return s / (w.end - w.start);
}
