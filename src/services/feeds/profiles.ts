import { type OracleProfile, profile } from "./oracle.ts";

/**
 * The four SWP feeds: reference funding asset and methodology profile of each.
 *
 * BTCSWP carries the deployed profile. The others are ours: they share BTCSWP's scale-to-baseline
 * ratio (S/B = 13⅓, so a given excess rate moves every feed by the same fraction before leverage),
 * use the ETH-style leverage L = 5 and a one-week EMA for the fixed leg (β = 1/168), and start the
 * fixed leg at the reference venue's interest-only hourly rate (0.0000125 on the main dex; half
 * that on the xyz HIP-3 dex, which scales its funding formula by 0.5).
 */
export const FEED_NAMES = ["btcswp", "hypeswp", "ethcswp", "spcxswp"] as const;
export type FeedName = (typeof FEED_NAMES)[number];

export interface FeedDef {
  /** Lowercase id used in paths and ports. */
  name: FeedName;
  /** Display symbol. */
  symbol: string;
  /** Coin whose funding is the reference rate, as the exchange names it. */
  coin: string;
  /** Perp dex of the coin ("" = main dex). */
  dex: string;
  profile: OracleProfile;
}

const ETH_STYLE = { leverage: "5", beta: "0.005952381" } as const;

export const FEEDS: Record<FeedName, FeedDef> = {
  btcswp: {
    name: "btcswp",
    symbol: "BTCSWP",
    coin: "BTC",
    dex: "",
    profile: profile({
      baseline: "75000",
      scale: "1000000",
      leverage: "15",
      beta: "0.080042",
      k0: "0.0000029",
    }),
  },
  hypeswp: {
    name: "hypeswp",
    symbol: "HYPESWP",
    coin: "HYPE",
    dex: "",
    profile: profile({ baseline: "750", scale: "10000", ...ETH_STYLE, k0: "0.0000125" }),
  },
  ethcswp: {
    name: "ethcswp",
    symbol: "ETHCSWP",
    coin: "ETH",
    dex: "",
    profile: profile({ baseline: "3000", scale: "40000", ...ETH_STYLE, k0: "0.0000125" }),
  },
  spcxswp: {
    name: "spcxswp",
    symbol: "SPCXSWP",
    coin: "xyz:SPCX",
    dex: "xyz",
    profile: profile({ baseline: "150", scale: "2000", ...ETH_STYLE, k0: "0.00000625" }),
  },
};

export function isFeedName(s: string): s is FeedName {
  return (FEED_NAMES as readonly string[]).includes(s);
}

/** Port offset of a feed's origin from FEEDS_PORT (btcswp +1 … spcxswp +4). */
export function feedPortOffset(name: FeedName): number {
  return FEED_NAMES.indexOf(name) + 1;
}
