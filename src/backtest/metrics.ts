import { D, type Dec, dec } from "../core/decimal.ts";

/**
 * The report's figures, as pure functions of the equity curve and the closed trades.
 * Definitions (docs/backtesting.md repeats them):
 * - period returns: equity at the end of each UTC day over the equity at the end of the one before
 *   (the first day starts from the starting capital);
 * - Sharpe: mean(daily return) / sample standard deviation × √365 (crypto trades every day);
 *   null when there are fewer than two days or the deviation is 0;
 * - Sortino: mean(daily return) / downside deviation × √365, the downside deviation being
 *   √(mean(min(r, 0)²)) over all days; null when no day lost;
 * - max drawdown: the largest fall of equity from its running peak, in USD and as a fraction of that
 *   peak; its duration runs from the peak to the first time equity is back at the peak (or to the end
 *   of the run when it never is);
 * - win rate: winning closed trades / closed trades (net of fees and funding); null without trades;
 * - profit factor: sum of winning trades' net PnL / |sum of losing trades' net PnL|; null when no
 *   trade lost;
 * - exposure: the fraction of candles that closed with a position open;
 * - CAGR: (final equity / starting capital)^(365 days / run length) − 1, null under 30 days (a
 *   week's return compounded to a year is noise); Calmar: CAGR / max drawdown fraction;
 * - expectancy: the mean net PnL of a closed trade; average trade duration: open to close, mean;
 * - buy and hold: the instrument's return from the first candle's open to the last close.
 */

const DAYS_PER_YEAR = 365;
const DAY_MS = 86_400_000;

function mean(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/** Sample standard deviation (n − 1); 0 for fewer than two values. */
export function stdev(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  let s = 0;
  for (const x of xs) s += (x - m) ** 2;
  return Math.sqrt(s / (xs.length - 1));
}

export function sharpe(returns: readonly number[], periodsPerYear = DAYS_PER_YEAR): number | null {
  if (returns.length < 2) return null;
  const sd = stdev(returns);
  // A deviation at rounding-noise level is a constant series.
  if (!(sd > 1e-12 * Math.max(1, Math.abs(mean(returns))))) return null;
  return (mean(returns) / sd) * Math.sqrt(periodsPerYear);
}

export function sortino(returns: readonly number[], periodsPerYear = DAYS_PER_YEAR): number | null {
  if (returns.length < 2) return null;
  let down = 0;
  let losing = 0;
  for (const r of returns) {
    if (r < 0) {
      down += r * r;
      losing += 1;
    }
  }
  if (losing === 0) return null;
  const dd = Math.sqrt(down / returns.length);
  return (mean(returns) / dd) * Math.sqrt(periodsPerYear);
}

interface Drawdown {
  /** Largest peak-to-trough fall (≥ 0). */
  maxUsd: number;
  /** The same fall as a fraction of its peak (0–1 while equity stays positive). */
  maxFraction: number;
  /** From that peak until equity first regained it (or the last sample), ms. */
  durationMs: number;
  peakMs: number | null;
  troughMs: number | null;
  /** When equity regained the peak; null when it never did. */
  recoveredMs: number | null;
}

/** Max drawdown of an equity curve sampled at `times` (both oldest first, same length). */
export function maxDrawdown(equity: ArrayLike<number>, times: ArrayLike<number>): Drawdown {
  const n = equity.length;
  const out: Drawdown = {
    maxUsd: 0,
    maxFraction: 0,
    durationMs: 0,
    peakMs: null,
    troughMs: null,
    recoveredMs: null,
  };
  if (n === 0) return out;
  let peak = equity[0]!;
  let peakAt = 0;
  let worstPeakAt = -1;
  for (let i = 1; i < n; i++) {
    const e = equity[i]!;
    if (e > peak) {
      peak = e;
      peakAt = i;
      continue;
    }
    const fall = peak - e;
    if (fall > out.maxUsd) {
      out.maxUsd = fall;
      out.maxFraction = peak > 0 ? fall / peak : 0;
      out.troughMs = times[i]!;
      worstPeakAt = peakAt;
    }
  }
  if (worstPeakAt < 0) return out;
  const peakValue = equity[worstPeakAt]!;
  out.peakMs = times[worstPeakAt]!;
  let end = n - 1;
  for (let i = worstPeakAt + 1; i < n; i++) {
    if (equity[i]! >= peakValue && times[i]! > (out.troughMs ?? 0)) {
      end = i;
      out.recoveredMs = times[i]!;
      break;
    }
  }
  out.durationMs = times[end]! - out.peakMs;
  return out;
}

/**
 * Daily returns: the last equity sample of each UTC day over the previous day's (the first over
 * `start`). `equity` and `times` are oldest first.
 */
export function dailyReturns(start: number, equity: ArrayLike<number>, times: ArrayLike<number>): number[] {
  const out: number[] = [];
  let prev = start;
  for (let i = 0; i < equity.length; i++) {
    const last =
      i === equity.length - 1 || Math.floor(times[i + 1]! / DAY_MS) !== Math.floor(times[i]! / DAY_MS);
    if (!last) continue;
    const e = equity[i]!;
    out.push(prev !== 0 ? e / prev - 1 : 0);
    prev = e;
  }
  return out;
}

interface TradeStats {
  closed: number;
  wins: number;
  winRate: number | null;
  profitFactor: number | null;
  grossProfit: Dec;
  grossLoss: Dec;
}

/** Win rate and profit factor of closed trades' net PnL (decimal strings). */
export function tradeStats(netPnls: readonly string[]): TradeStats {
  let profit = new D(0);
  let loss = new D(0);
  let wins = 0;
  for (const p of netPnls) {
    const x = dec(p);
    if (x.gt(0)) {
      wins += 1;
      profit = profit.plus(x);
    } else if (x.lt(0)) loss = loss.plus(x.abs());
  }
  const closed = netPnls.length;
  return {
    closed,
    wins,
    winRate: closed === 0 ? null : wins / closed,
    profitFactor: loss.isZero() ? null : profit.div(loss).toNumber(),
    grossProfit: profit,
    grossLoss: loss,
  };
}

/** Compound annual growth rate, null for runs shorter than `minDays`. */
export function cagr(capital: number, finalEquity: number, durationMs: number, minDays = 30): number | null {
  if (!(capital > 0) || durationMs < minDays * DAY_MS) return null;
  if (!(finalEquity > 0)) return -1;
  return (finalEquity / capital) ** ((DAYS_PER_YEAR * DAY_MS) / durationMs) - 1;
}

/** Calmar ratio: CAGR over the max drawdown fraction; null without either. */
export function calmar(cagrValue: number | null, maxDrawdownFraction: number): number | null {
  return cagrValue === null || !(maxDrawdownFraction > 0) ? null : cagrValue / maxDrawdownFraction;
}

/** Mean of the closed trades' net PnL (decimal strings), null without trades. */
export function expectancy(netPnls: readonly string[]): Dec | null {
  if (netPnls.length === 0) return null;
  let sum = new D(0);
  for (const p of netPnls) sum = sum.plus(dec(p));
  return sum.div(netPnls.length);
}

/** Fraction of samples with a non-zero position. */
export function exposure(qty: ArrayLike<number>): number {
  if (qty.length === 0) return 0;
  let open = 0;
  for (let i = 0; i < qty.length; i++) if (qty[i] !== 0) open += 1;
  return open / qty.length;
}
