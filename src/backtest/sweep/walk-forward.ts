import { UserError } from "../../core/errors.ts";

/** One walk-forward fold: optimise on [inFrom, inTo), then measure on [outFrom, outTo) right after. */
interface Fold {
  index: number;
  inFrom: number;
  inTo: number;
  outFrom: number;
  outTo: number;
}

/** In-sample windows are this many times as long as out-of-sample ones unless asked otherwise. */
const DEFAULT_IN_SAMPLE_RATIO = 3;
/** Folds are cut on whole minutes (the finest recorded candle). */
const MINUTE_MS = 60_000;

/**
 * Rolling walk-forward windows over [fromMs, toMs): `folds` out-of-sample windows of equal length L
 * tile the end of the period back to back, and each is preceded by its in-sample window of
 * `ratio`·L. So every window lies inside the period (whole minutes, the last ending at its last whole minute), and no
 * out-of-sample minute is ever part of its own fold's in-sample window.
 */
export function walkForwardFolds(
  fromMs: number,
  toMs: number,
  folds: number,
  ratio = DEFAULT_IN_SAMPLE_RATIO,
): Fold[] {
  if (!Number.isInteger(folds) || folds < 1)
    throw new UserError(`--folds must be a whole number ≥ 1, got ${folds}`);
  if (!(ratio > 0)) throw new UserError(`the in-sample ratio must be positive, got ${ratio}`);
  const minutes = Math.floor((toMs - fromMs) / MINUTE_MS);
  const outMinutes = Math.floor(minutes / (folds + ratio));
  const inMinutes = Math.floor(outMinutes * ratio);
  if (outMinutes < 1 || inMinutes < 1)
    throw new UserError(`the period is too short for ${folds} walk-forward folds (${minutes} minutes)`);
  const end = fromMs + Math.floor((toMs - fromMs) / MINUTE_MS) * MINUTE_MS;
  const out: Fold[] = [];
  for (let i = 0; i < folds; i++) {
    const outTo = end - (folds - 1 - i) * outMinutes * MINUTE_MS;
    const outFrom = outTo - outMinutes * MINUTE_MS;
    out.push({ index: i, inFrom: outFrom - inMinutes * MINUTE_MS, inTo: outFrom, outFrom, outTo });
  }
  return out;
}
