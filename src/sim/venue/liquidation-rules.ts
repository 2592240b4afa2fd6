/**
 * The exchange's liquidation rules as pure functions, on the venue's integers (lots, price units,
 * micro-USDC), shared by the sim venue (liquidation.ts) and the --dry-run paper book
 * (src/engine/paper-gateway.ts), so both liquidate by one source (Hyperliquid docs: Trading →
 * Liquidations):
 * - below maintenance margin (cross: the account's equity against its cross positions'; isolated:
 *   the position's margin plus uPnL against its own), reduce-only market orders go to the book;
 * - a position worth more than $100k sends 20 % of its size; after such a partial liquidation a
 *   30 s cooldown follows, during which a liquidation sends the whole position;
 * - below 2/3 of maintenance after those orders, the backstop liquidator takes the rest at the mark.
 */

const MICRO = 1_000_000;

/** Positions worth more than this (micro-USDC) are liquidated 20 % at a time. */
const PARTIAL_LIQUIDATION_ABOVE = 100_000 * MICRO;
/** Share of the position a partial liquidation sends: 1/5. */
const PARTIAL_DIVISOR = 5;
export const PARTIAL_LIQUIDATION_COOLDOWN_MS = 30_000;
/** A liquidation's market order may fill at most this far through the mark price (sim choice). */
const LIQUIDATION_SLIPPAGE = 0.02;

/** Equity (micro-USDC) below maintenance: the account or isolated position is liquidated. */
export function belowMaintenance(equity: number, maint: number): boolean {
  return equity < maint;
}

/** Equity below 2/3 of maintenance: the backstop liquidator takes over. */
export function belowBackstop(equity: number, maint: number): boolean {
  return 3 * equity < 2 * maint;
}

/**
 * The size (lots) a liquidation's market order sends for a position of `abs` lots worth `value`
 * micro-USDC at the mark; `partial` when it leaves part of the position (the cooldown then starts).
 */
export function liquidationOrderSize(
  abs: number,
  value: number,
  cooling: boolean,
): { sz: number; partial: boolean } {
  if (cooling || value <= PARTIAL_LIQUIDATION_ABOVE) return { sz: abs, partial: false };
  const sz = Math.max(1, Math.ceil(abs / PARTIAL_DIVISOR));
  return { sz, partial: sz < abs };
}

/** The limit price (price units) of a liquidation's market order at `mark`. */
export function liquidationLimit(isBuy: boolean, mark: number): number {
  return isBuy
    ? Math.ceil(mark * (1 + LIQUIDATION_SLIPPAGE))
    : Math.max(1, Math.floor(mark * (1 - LIQUIDATION_SLIPPAGE)));
}

/**
 * The price a level at `levelPx` fills a market order acting on `mark` (a liquidation, a fired
 * trigger) at: a stale level better than the mark fills at the mark, never past the order's limit.
 */
export function markBoundPrice(isBuy: boolean, limit: number, levelPx: number, mark: number): number {
  return isBuy ? Math.min(limit, Math.max(levelPx, mark)) : Math.max(limit, Math.min(levelPx, mark));
}
