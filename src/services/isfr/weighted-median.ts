import { D, type Dec } from "../../core/decimal.ts";

interface Weighted {
  value: Dec;
  weight: Dec;
}

/**
 * Interpolated weighted median. Sources are sorted by value; each sits at the midpoint of its
 * share of the cumulative weight (c_i = Σ_{j<i} p_j + p_i/2, p normalised). The median is the value
 * at cumulative weight ½, interpolated linearly between the two neighbouring midpoints (clamped to
 * the extremes). With equal weights this is the ordinary median; with two sources it equals their
 * weighted mean (so the public Aave/Compound example holds); with three or more, one outlier can
 * move it at most to its neighbour — the resistance to manipulation a mean lacks.
 * Entries with zero or negative weight are ignored; returns null when nothing has weight.
 */
export function weightedMedian(entries: readonly Weighted[]): Dec | null {
  const usable = entries.filter((e) => e.weight.gt(0)).sort((a, b) => a.value.comparedTo(b.value));
  if (usable.length === 0) return null;
  // Work in units of twice the cumulative weight, so every comparison is exact (no division).
  const total = usable.reduce((s, e) => s.plus(e.weight), new D(0));
  let before = new D(0);
  const points = usable.map((e) => {
    const mid2 = before.times(2).plus(e.weight);
    before = before.plus(e.weight);
    return { value: e.value, mid2 };
  });
  const first = points[0]!;
  if (total.lte(first.mid2)) return first.value;
  for (let i = 1; i < points.length; i++) {
    const lo = points[i - 1]!;
    const hi = points[i]!;
    if (total.lte(hi.mid2)) {
      const t = total.minus(lo.mid2).div(hi.mid2.minus(lo.mid2));
      return lo.value.plus(hi.value.minus(lo.value).times(t));
    }
  }
  return points[points.length - 1]!.value;
}
