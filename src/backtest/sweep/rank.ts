import type { GridPoint } from "./grid.ts";

/** One grid point's run and the figure it is ranked by (undefined: the run failed or had no figure). */
export interface SweepRun<F> {
  /** Position in the grid (what breaks ties, so a ranking never depends on finishing order). */
  index: number;
  params: GridPoint;
  score: number | undefined;
  figures?: F;
  error?: string;
}

/** Figures where smaller is better; every other metric ranks larger first. */
const LOWER_IS_BETTER = new Set(["max_drawdown", "max_drawdown_pct", "max_drawdown_usd", "fees", "exposure"]);

function lowerIsBetter(metric: string): boolean {
  return LOWER_IS_BETTER.has(metric);
}

/**
 * Best first by `metric`; runs without a finite score go last; equal scores keep grid order. Pure: the
 * same runs in any order give the same ranking.
 */
export function rankRuns<F>(runs: readonly SweepRun<F>[], metric: string): SweepRun<F>[] {
  const sign = lowerIsBetter(metric) ? 1 : -1;
  return [...runs].sort((a, b) => {
    const fa = a.score !== undefined && Number.isFinite(a.score);
    const fb = b.score !== undefined && Number.isFinite(b.score);
    if (fa !== fb) return fa ? -1 : 1;
    if (fa && fb && a.score !== b.score) return sign * (a.score! - b.score!);
    return a.index - b.index;
  });
}
