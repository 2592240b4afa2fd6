/**
 * How the house book refills after a trade takes depth from it: the part of each level that is
 * missing decays exponentially, halving every `halfLifeMs` (the resiliency of a limit order book,
 * as Large (2007) measures it). Pure: sizes in, sizes out.
 */

/** Share of a hole still missing after `dtMs`: 2^(−dt/halfLife). */
export function remainingShare(dtMs: number, halfLifeMs: number): number {
  if (!(dtMs > 0)) return 1;
  if (!(halfLifeMs > 0)) return 0;
  return 2 ** (-dtMs / halfLifeMs);
}

/** One house level between two looks at it. */
interface LevelLook {
  /** Size of the full level. */
  target: number;
  /** What was missing of it at the last look. */
  hole: number;
  /** Size resting at the last look, and now: the difference is what trades took in between. */
  before: number;
  now: number;
}

/**
 * The hole at a level `dtMs` after the last look: the hole it had decays; what trades took since has
 * only just been taken, so it is counted in full. Never negative, never more than the whole level.
 */
export function holeAfter(level: LevelLook, dtMs: number, halfLifeMs: number): number {
  const taken = Math.max(0, level.before - level.now);
  return Math.max(0, Math.min(level.target, level.hole * remainingShare(dtMs, halfLifeMs) + taken));
}
