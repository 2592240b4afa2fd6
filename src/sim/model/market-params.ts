import { deriveSeed } from "./prng.ts";

/** How one market's price behaves in the model. */
export interface MarketParams {
  /** Annualised volatility in the calm regime (0.6 = 60 %). */
  volAnnual: number;
  /** Correlation of its shocks with BTC's (1 for BTC itself). */
  btcCorrelation: number;
  /** Expected jumps per day and the standard deviation of a jump's log size. */
  jumpsPerDay: number;
  jumpSize: number;
  /** Long-run premium of the perp over its oracle (fraction), and how widely it wanders. */
  premiumMean: number;
  premiumVol: number;
  /** Notional in USD of the first house level each side; deeper levels hold more. */
  levelNotionalUsd: number;
  /** Half the house spread, in basis points. */
  halfSpreadBps: number;
}

const KNOWN: Record<string, Partial<MarketParams>> = {
  BTC: {
    volAnnual: 0.5,
    btcCorrelation: 1,
    jumpsPerDay: 0.5,
    jumpSize: 0.012,
    levelNotionalUsd: 60_000,
    halfSpreadBps: 0.6,
  },
  ETH: {
    volAnnual: 0.65,
    btcCorrelation: 0.85,
    jumpsPerDay: 0.6,
    jumpSize: 0.015,
    levelNotionalUsd: 40_000,
    halfSpreadBps: 0.8,
  },
  SOL: { volAnnual: 0.8, btcCorrelation: 0.75, levelNotionalUsd: 20_000, halfSpreadBps: 1.2 },
  HYPE: { volAnnual: 1.0, btcCorrelation: 0.55, levelNotionalUsd: 15_000, halfSpreadBps: 1.5 },
  // HIP-3 products: a rate, an equity and a volatility product barely follow BTC.
  US3M: { volAnnual: 0.15, btcCorrelation: 0, jumpsPerDay: 0.2, jumpSize: 0.005 },
  BTCSWP: { volAnnual: 0.6, btcCorrelation: 0.3 },
  SPCX: { volAnnual: 0.5, btcCorrelation: 0.3 },
  VXX: { volAnnual: 0.9, btcCorrelation: -0.4 },
};

/** Parameters for a coin: tuned for the majors, and a seeded but plausible alt profile for the rest. */
export function marketParams(coin: string, seed: number): MarketParams {
  const h = deriveSeed(seed, `params:${coin}`);
  const u = (bits: number) => ((h >>> bits) & 0xff) / 255;
  const base: MarketParams = {
    volAnnual: 0.7 + 0.6 * u(0),
    btcCorrelation: 0.45 + 0.35 * u(8),
    jumpsPerDay: 0.5 + 1.5 * u(16),
    jumpSize: 0.015 + 0.02 * u(24),
    premiumMean: 0.00005,
    premiumVol: 0.0004,
    levelNotionalUsd: 10_000,
    halfSpreadBps: 2,
  };
  const bare = coin.includes(":") ? coin.slice(coin.indexOf(":") + 1) : coin;
  return { ...base, ...(KNOWN[bare] ?? {}) };
}
