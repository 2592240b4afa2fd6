import type { InfoHandler } from "./context.ts";

/**
 * Hyperliquid's contract specifications: the largest market order by max leverage
 * ($4M at ≥ 50x, $1M at 20–50x, $500k at 10–20x, else $250k).
 */
function maxMarketOrderNtl(maxLeverage: number): number {
  if (maxLeverage >= 50) return 4_000_000;
  if (maxLeverage >= 20) return 1_000_000;
  if (maxLeverage >= 10) return 500_000;
  return 250_000;
}

/** maxMarketOrderNtls: [notional, coin] for every main-dex perp. */
export const maxMarketOrderNtls: InfoHandler = (c) =>
  c.core.markets.filter((m) => m.dexIndex === 0).map((m) => [maxMarketOrderNtl(m.spec.maxLeverage), m.coin]);
