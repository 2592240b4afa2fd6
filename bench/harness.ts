/** What every benchmark reports: a named figure, its unit, and optionally a target and a baseline. */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** e.g. "≥ 100000" or "< 5" — printed beside the value, checked when `better` is set. */
  target?: { op: "<" | "<=" | ">" | ">="; value: number };
  /** A baseline measured in the same run; the ratio value/baseline is printed. */
  baseline?: { name: string; value: number };
}

export interface BenchReporter {
  figure(f: Figure): void;
}

export type BenchFn = (report: BenchReporter) => Promise<void>;

/** Percentile of an unsorted sample (nearest-rank). */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

export function meetsTarget(f: Figure): boolean | undefined {
  if (!f.target) return undefined;
  const { op, value } = f.target;
  switch (op) {
    case "<":
      return f.value < value;
    case "<=":
      return f.value <= value;
    case ">":
      return f.value > value;
    case ">=":
      return f.value >= value;
  }
}

export function formatFigure(f: Figure): string {
  const v = Math.abs(f.value) >= 100 ? f.value.toFixed(0) : f.value.toPrecision(4);
  let line = `${f.name.padEnd(58)} ${v.padStart(12)} ${f.unit}`;
  if (f.target)
    line += `   target ${f.target.op} ${f.target.value} ${f.unit}: ${meetsTarget(f) ? "met" : "MISSED"}`;
  if (f.baseline) line += `   ×${(f.value / f.baseline.value).toFixed(2)} vs ${f.baseline.name}`;
  return line;
}
