/**
 * Figures a trader would check a market against: realised volatility from candles, spread and
 * top-of-book depth from l2Book snapshots, and the distribution of hourly funding. Pure: no I/O.
 */

const YEAR_MS = 365 * 86_400_000;

interface BookLevel {
  px: string;
  sz: string;
}
export interface BookSnapshot {
  levels: [BookLevel[], BookLevel[]];
}

/**
 * Annualised realised volatility of closes spaced `periodMs` apart: the sample standard deviation
 * of log returns, scaled by √(periods per 365-day year). NaN with fewer than two returns.
 */
export function realisedVolAnnual(closes: readonly number[], periodMs: number): number {
  const returns: number[] = [];
  for (let i = 1; i < closes.length; i++) returns.push(Math.log(closes[i]! / closes[i - 1]!));
  if (returns.length < 2) return Number.NaN;
  const mean = returns.reduce((a, r) => a + r, 0) / returns.length;
  const variance = returns.reduce((a, r) => a + (r - mean) ** 2, 0) / (returns.length - 1);
  return Math.sqrt(variance * (YEAR_MS / periodMs));
}

/** Best ask minus best bid over the mid, in basis points; undefined when a side is empty. */
export function spreadBps(book: BookSnapshot): number | undefined {
  const bid = book.levels[0][0];
  const ask = book.levels[1][0];
  if (!bid || !ask) return undefined;
  const b = Number(bid.px);
  const a = Number(ask.px);
  return ((a - b) / ((a + b) / 2)) * 10_000;
}

/** USD resting at the best bid and at the best ask, averaged over the two sides. */
export function topOfBookDepthUsd(book: BookSnapshot): number | undefined {
  const bid = book.levels[0][0];
  const ask = book.levels[1][0];
  if (!bid || !ask) return undefined;
  return (Number(bid.px) * Number(bid.sz) + Number(ask.px) * Number(ask.sz)) / 2;
}

/** The q-quantile (0 ≤ q ≤ 1) by linear interpolation between order statistics; NaN when empty. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export interface Distribution {
  p5: number;
  median: number;
  p95: number;
  n: number;
}

export function distribution(values: readonly number[]): Distribution {
  return {
    p5: quantile(values, 0.05),
    median: quantile(values, 0.5),
    p95: quantile(values, 0.95),
    n: values.length,
  };
}

/**
 * What a market buy of `notionalUsd` pays over the mid, in bps, walking the asks of one snapshot;
 * undefined when the shown book cannot fill it.
 */
export function buyCostBps(book: BookSnapshot, notionalUsd: number): number | undefined {
  const bid = book.levels[0][0];
  const ask = book.levels[1][0];
  if (!bid || !ask) return undefined;
  const mid = (Number(bid.px) + Number(ask.px)) / 2;
  let left = notionalUsd;
  let coins = 0;
  for (const l of book.levels[1]) {
    const px = Number(l.px);
    const take = Math.min(left, px * Number(l.sz));
    coins += take / px;
    left -= take;
    if (left <= 1e-9) return (notionalUsd / coins / mid - 1) * 10_000;
  }
  return undefined;
}

/**
 * Half-life of a recovery: the first time (linearly interpolated between samples) at which the
 * missing share, `missing[i]` at `times[i]`, is at most half of the first sample. NaN if it never is.
 */
export function halfLifeOf(times: readonly number[], missing: readonly number[]): number {
  const first = missing[0];
  if (first === undefined || !(first > 0)) return Number.NaN;
  const half = first / 2;
  for (let i = 1; i < missing.length; i++) {
    if (missing[i]! <= half) {
      const [t0, t1, m0, m1] = [times[i - 1]!, times[i]!, missing[i - 1]!, missing[i]!];
      return m0 === m1 ? t1 : t0 + ((m0 - half) / (m0 - m1)) * (t1 - t0);
    }
  }
  return Number.NaN;
}
