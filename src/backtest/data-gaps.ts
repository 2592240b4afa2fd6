/** A stretch of the period a dataset has nothing for (ISO times, `to` exclusive). */
export interface DataGap {
  dataset: string;
  from: string;
  to: string;
}

/**
 * Slots of `stepMs` in [fromMs, toMs) (on the step's grid) that hold no time of `times` (oldest
 * first), merged into stretches: a missing day of 1 m candles is one gap, not 1,440.
 */
export function missingSlots(
  dataset: string,
  times: ArrayLike<number>,
  stepMs: number,
  fromMs: number,
  toMs: number,
): DataGap[] {
  const out: DataGap[] = [];
  let k = 0;
  let holeFrom = -1;
  for (let slot = Math.ceil(fromMs / stepMs) * stepMs; slot < toMs; slot += stepMs) {
    while (k < times.length && times[k]! < slot) k += 1;
    const held = k < times.length && times[k]! < slot + stepMs;
    if (!held && holeFrom < 0) holeFrom = slot;
    if (held && holeFrom >= 0) {
      out.push(gap(dataset, holeFrom, slot));
      holeFrom = -1;
    }
  }
  if (holeFrom >= 0) out.push(gap(dataset, holeFrom, Math.ceil(toMs / stepMs) * stepMs));
  return out;
}

/** The holes between covered stretches ([from, to] pairs, oldest first) that fall inside [fromMs, toMs). */
export function holesBetween(
  dataset: string,
  stretches: readonly (readonly [number, number])[],
  fromMs: number,
  toMs: number,
): DataGap[] {
  const out: DataGap[] = [];
  for (let i = 1; i < stretches.length; i++) {
    const from = stretches[i - 1]![1];
    const to = stretches[i]![0];
    if (to > fromMs && from < toMs) out.push(gap(dataset, Math.max(from, fromMs), Math.min(to, toMs)));
  }
  return out;
}

function gap(dataset: string, from: number, to: number): DataGap {
  return { dataset, from: new Date(from).toISOString(), to: new Date(to).toISOString() };
}
