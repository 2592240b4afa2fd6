import { MAINNET_META } from "../venue/markets.ts";
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
  /** Half the house spread, in basis points (0: the touch is one tick wide, the exchange's floor). */
  halfSpreadBps: number;
  /** Half-life (sim ms) in which depth that a trade took from the house's book comes back. */
  refillHalfLifeMs: number;
  /** Typical traded notional per day (USD) and open interest (USD) of the rest of the market. */
  dayVolumeUsd: number;
  openInterestUsd: number;
}

/** HIP-3 activity (24 h volume and open interest in USD): the dexes' own markets are not on record. */
const HIP3_ACTIVITY: Record<string, [dayVolumeUsd: number, openInterestUsd: number]> = {
  XYZ100: [2e7, 2e7],
  TSLA: [1.2e7, 4.5e7],
  NVDA: [1e7, 2e7],
  SPCX: [8e6, 1e7],
  VXX: [3e6, 4e6],
  US3M: [1.5e6, 3e6],
  BTCSWP: [2e6, 3e6],
};

/** Main-dex activity as recorded with the universe (mainnet asset contexts, same date). */
const RECORDED_ACTIVITY = new Map(
  MAINNET_META.universe.map((u) => [
    u.name,
    [Number(u.dayNtlVlm), Number(u.openInterest) * Number(u.markPx)] as [number, number],
  ]),
);

/** Coins traded as memes: more volatile and jumpier. */
const MEMES = new Set([
  "DOGE",
  "kPEPE",
  "WIF",
  "FARTCOIN",
  "TRUMP",
  "kBONK",
  "kSHIB",
  "POPCAT",
  "PENGU",
  "PNUT",
  "MEME",
  "MOODENG",
  "GOAT",
  "CHILLGUY",
  "SPX",
  "MEW",
  "BRETT",
  "TURBO",
  "kFLOKI",
  "kNEIRO",
  "NEIROETH",
  "PUMP",
  "FWOG",
  "BOME",
  "MELANIA",
  "VINE",
  "TST",
  "HPOS",
  "PURR",
  "BANANA",
  "kLUNC",
  "GRIFFAIN",
]);

type MarketClass = "major" | "mid" | "meme" | "hip3";

/** The class whose volatility, funding and liquidity a market follows. */
function marketClass(coin: string): MarketClass {
  if (coin.includes(":")) return "hip3";
  if (coin === "BTC" || coin === "ETH" || coin === "SOL") return "major";
  return MEMES.has(coin) ? "meme" : "mid";
}

/**
 * Resiliency: after a trade takes depth from a limit order book, the depth comes back with a half-life
 * of about 20 s — Large (2007), "Measuring the resiliency of an electronic limit order book", Journal
 * of Financial Markets 10(1), estimated on an LSE book. No figure for Hyperliquid's books was found
 * published, so every class refills at this one.
 */
export const REFILL_HALF_LIFE_MS = 20_000;

/**
 * Widest half-spread of a thin market: the thinnest perps whose spread was found published (MEME, W,
 * HYPER, at $0.2–0.4M a day) show 4–5 bps from their prices (Roll estimate, hypo.markets).
 */
const MAX_HALF_SPREAD_BPS = 2.5;

/** BTC's recorded 24 h volume: the reference the alts' depth and spread are scaled from. */
const BTC_VOLUME_USD = 3.2e9;

const KNOWN: Record<string, Partial<MarketParams>> = {
  BTC: {
    volAnnual: 0.5,
    btcCorrelation: 1,
    jumpsPerDay: 0.5,
    jumpSize: 0.012,
    levelNotionalUsd: 60_000,
    // One tick: "as tight as $0.10 on a $90,000 asset" (Hyperdash) is below the $1 tick.
    halfSpreadBps: 0,
  },
  ETH: {
    // Median 30-day daily realised volatility of the process 68 % (p5–p95 50–89 % over 200 seeds),
    // inside the published 50–100 % and near the 58 % snapshot (trdesk; see docs/sim-realism.md).
    volAnnual: 0.55,
    btcCorrelation: 0.85,
    jumpsPerDay: 0.6,
    jumpSize: 0.015,
    levelNotionalUsd: 40_000,
    // One tick, as BTC: a price-only (Roll) spread estimate of Hyperliquid's ETH reads 0.0 bps.
    halfSpreadBps: 0,
  },
  // A major like BTC and ETH: quoted at one tick (no figure of its own was found published).
  SOL: { volAnnual: 0.8, btcCorrelation: 0.75, levelNotionalUsd: 20_000, halfSpreadBps: 0 },
  HYPE: { volAnnual: 1.0, btcCorrelation: 0.55, levelNotionalUsd: 15_000, halfSpreadBps: 1.5 },
  XRP: { levelNotionalUsd: 15_000, halfSpreadBps: 1.5 },
  // HIP-3 products: a rate, an equity and a volatility product barely follow BTC.
  US3M: { volAnnual: 0.15, btcCorrelation: 0, jumpsPerDay: 0.2, jumpSize: 0.005 },
  BTCSWP: { volAnnual: 0.6, btcCorrelation: 0.3 },
  SPCX: { volAnnual: 0.5, btcCorrelation: 0.3 },
  XYZ100: { volAnnual: 0.25, btcCorrelation: 0.3, jumpsPerDay: 0.2, jumpSize: 0.008 },
  TSLA: { volAnnual: 0.6, btcCorrelation: 0.3 },
  NVDA: { volAnnual: 0.5, btcCorrelation: 0.3 },
  VXX: { volAnnual: 0.9, btcCorrelation: -0.4 },
};

/**
 * Parameters for a coin: tuned for the majors; the rest follow their class, with depth and spread
 * scaled from their recorded 24 h volume (thinner markets quote wider and smaller), seeded per coin.
 */
export function marketParams(coin: string, seed: number): MarketParams {
  const h = deriveSeed(seed, `params:${coin}`);
  const u = (bits: number) => ((h >>> bits) & 0xff) / 255;
  const bare = coin.includes(":") ? coin.slice(coin.indexOf(":") + 1) : coin;
  const cls = marketClass(coin);
  const [dayVolumeUsd, openInterestUsd] = (cls === "hip3"
    ? HIP3_ACTIVITY[bare]
    : RECORDED_ACTIVITY.get(coin)) ?? [2e6, 3e6];
  const thinness = BTC_VOLUME_USD / Math.max(dayVolumeUsd, 1e5);
  const meme = cls === "meme";
  const base: MarketParams = {
    volAnnual: (meme ? 0.95 : 0.7) + (meme ? 0.6 : 0.4) * u(0),
    btcCorrelation: (meme ? 0.35 : 0.45) + 0.35 * u(8),
    jumpsPerDay: 0.5 + 1.5 * u(16),
    jumpSize: (meme ? 0.025 : 0.015) + 0.02 * u(24),
    premiumMean: 0.00005,
    premiumVol: 0.0004,
    levelNotionalUsd: Math.round(Math.min(60_000, Math.max(1_500, 60_000 / Math.sqrt(thinness)))),
    halfSpreadBps: Math.min(MAX_HALF_SPREAD_BPS, 0.6 * thinness ** 0.35),
    refillHalfLifeMs: REFILL_HALF_LIFE_MS,
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
