import { deriveSeed } from "./prng.ts";

/** How one market's price and trading behave in the model. */
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
  /** Typical traded notional per day (USD) and open interest (USD) of the rest of the market. */
  dayVolumeUsd: number;
  openInterestUsd: number;
}

/** Hyperliquid-sized activity per coin: 24 h volume and open interest in USD (their usual range). */
const ACTIVITY: Record<string, [dayVolumeUsd: number, openInterestUsd: number]> = {
  BTC: [2.5e9, 2.5e9],
  ETH: [1.5e9, 1.5e9],
  SOL: [4e8, 5e8],
  HYPE: [3e8, 6e8],
  XRP: [1.5e8, 2e8],
  DOGE: [8e7, 1e8],
  SUI: [6e7, 8e7],
  ENA: [5e7, 6e7],
  FARTCOIN: [5e7, 5e7],
  kPEPE: [4e7, 4e7],
  AVAX: [2.5e7, 3e7],
  LINK: [2.5e7, 3e7],
  AAVE: [2e7, 3e7],
  ADA: [2e7, 3e7],
  WIF: [2e7, 2e7],
  BNB: [1.4e7, 4.5e7],
  LTC: [1.5e7, 2e7],
  TRUMP: [1.5e7, 2e7],
  TAO: [1.2e7, 2e7],
  ARB: [1e7, 1.5e7],
  NEAR: [1e7, 1.5e7],
  APT: [8e6, 1.2e7],
  SEI: [8e6, 1e7],
  WLD: [8e6, 1.2e7],
  CRV: [8e6, 1e7],
  BCH: [8e6, 1.5e7],
  UNI: [7e6, 1e7],
  OP: [6e6, 1e7],
  TIA: [6e6, 1e7],
  ONDO: [6e6, 1e7],
  kBONK: [6e6, 8e6],
  INJ: [5e6, 8e6],
  DOT: [5e6, 8e6],
  TON: [4e6, 8e6],
  SPCX: [8e6, 1e7],
  VXX: [3e6, 4e6],
  US3M: [1.5e6, 3e6],
  BTCSWP: [2e6, 3e6],
};

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
  XRP: { levelNotionalUsd: 15_000, halfSpreadBps: 1.5 },
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
  const bare = coin.includes(":") ? coin.slice(coin.indexOf(":") + 1) : coin;
  const [dayVolumeUsd, openInterestUsd] = ACTIVITY[bare] ?? [2e6, 3e6];
  const base: MarketParams = {
    volAnnual: 0.7 + 0.6 * u(0),
    btcCorrelation: 0.45 + 0.35 * u(8),
    jumpsPerDay: 0.5 + 1.5 * u(16),
    jumpSize: 0.015 + 0.02 * u(24),
    premiumMean: 0.00005,
    premiumVol: 0.0004,
    levelNotionalUsd: 10_000,
    halfSpreadBps: 2,
    dayVolumeUsd,
    openInterestUsd,
  };
  return { ...base, ...(KNOWN[bare] ?? {}) };
}

/** Most background taker orders per market per minute; bigger flow comes in bigger orders. */
const MAX_TAKERS_PER_MINUTE = 40;

/** The background taker flow that trades a market's daily volume: orders per minute and mean size (USD). */
export function takerFlow(p: MarketParams): { perMinute: number; meanUsd: number } {
  const perMinuteUsd = p.dayVolumeUsd / 1440;
  const perMinute = Math.min(MAX_TAKERS_PER_MINUTE, perMinuteUsd / (p.levelNotionalUsd * 0.4));
  return { perMinute, meanUsd: perMinuteUsd / perMinute };
}
