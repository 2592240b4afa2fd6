/** The sim world's listed perpetual markets: the main dex plus the HIP-3 dexes `xyz` and `yex`. */

export interface MarketSpec {
  /** "" for the main dex, otherwise the HIP-3 dex name. */
  dex: string;
  /** Coin as it appears on the wire; HIP-3 names carry the dex prefix ("yex:VXX"). */
  name: string;
  szDecimals: number;
  maxLeverage: number;
  /** HIP-3 markets are isolated-only. */
  onlyIsolated?: boolean;
  /** Starting oracle price (decimal string). */
  startPx: string;
  /** Notional (USD) used for the impact prices that drive the funding premium. */
  impactNotionalUsd?: number;
}

export interface DexSpec {
  name: string;
  fullName: string;
  deployer: `0x${string}`;
  /** Fees in tenths of a basis point (45 = 0.045%). */
  takerFee: number;
  makerFee: number;
  /** Funding multiplier and per-hour interest rate the deployer set (HIP-3). */
  fundingMultiplier: string;
  fundingInterestRate: string;
}

/** Main dex fees: taker 0.045%, maker 0.015% (Hyperliquid's base tier). */
export const MAIN_DEX: DexSpec = {
  name: "",
  fullName: "Hyperliquid",
  deployer: "0x0000000000000000000000000000000000000000",
  takerFee: 45,
  makerFee: 15,
  fundingMultiplier: "1",
  fundingInterestRate: "0.0000125",
};

/** HIP-3 dexes in perpDexs order (index 1, 2, …): fees are twice the main dex's, as on Hyperliquid. */
export const HIP3_DEXES: DexSpec[] = [
  {
    name: "xyz",
    fullName: "XYZ",
    deployer: "0x88806a71d74ad0a510b350545c9ae490912f0888",
    takerFee: 90,
    makerFee: 30,
    fundingMultiplier: "0.5",
    fundingInterestRate: "0.0000125",
  },
  {
    name: "yex",
    fullName: "YEX yield perps",
    deployer: "0x9e5c0000000000000000000000000000000000e5",
    takerFee: 90,
    makerFee: 30,
    fundingMultiplier: "1",
    fundingInterestRate: "0.0000125",
  },
];

export const DEFAULT_MARKETS: MarketSpec[] = [
  { dex: "", name: "BTC", szDecimals: 5, maxLeverage: 40, startPx: "97000", impactNotionalUsd: 20_000 },
  { dex: "", name: "ETH", szDecimals: 4, maxLeverage: 25, startPx: "3400", impactNotionalUsd: 20_000 },
  { dex: "", name: "SOL", szDecimals: 2, maxLeverage: 20, startPx: "180" },
  { dex: "", name: "HYPE", szDecimals: 2, maxLeverage: 10, startPx: "35" },
  { dex: "", name: "ARB", szDecimals: 1, maxLeverage: 10, startPx: "0.45" },
  { dex: "", name: "DOGE", szDecimals: 0, maxLeverage: 10, startPx: "0.17" },
  { dex: "", name: "AVAX", szDecimals: 2, maxLeverage: 10, startPx: "25" },
  { dex: "", name: "LINK", szDecimals: 1, maxLeverage: 10, startPx: "15" },
  { dex: "xyz", name: "xyz:SPCX", szDecimals: 3, maxLeverage: 5, onlyIsolated: true, startPx: "250" },
  { dex: "yex", name: "yex:VXX", szDecimals: 2, maxLeverage: 5, onlyIsolated: true, startPx: "45" },
  { dex: "yex", name: "yex:US3M", szDecimals: 2, maxLeverage: 10, onlyIsolated: true, startPx: "4.2" },
  { dex: "yex", name: "yex:BTCSWP", szDecimals: 2, maxLeverage: 10, onlyIsolated: true, startPx: "8.5" },
];

/** Default impact notional: $20k for BTC and ETH (set in their specs), $6k for everything else. */
export const DEFAULT_IMPACT_NOTIONAL_USD = 6_000;

/** Asset id: the main dex uses the universe index; HIP-3 dex k uses 100000 + k·10000 + index. */
export function assetId(dexIndex: number, indexInMeta: number): number {
  return dexIndex === 0 ? indexInMeta : 100_000 + dexIndex * 10_000 + indexInMeta;
}

/** A minimal spot universe: the SDK's SymbolConverter refuses an empty spotMeta. */
export const SPOT_META = {
  universe: [{ tokens: [1, 0], name: "PURR/USDC", index: 0, isCanonical: true }],
  tokens: [
    {
      name: "USDC",
      szDecimals: 8,
      weiDecimals: 8,
      index: 0,
      tokenId: "0x6d1e7cde53ba9467b783cb7c530ce054",
      isCanonical: true,
      evmContract: null,
      fullName: null,
      deployerTradingFeeShare: "0.0",
    },
    {
      name: "PURR",
      szDecimals: 0,
      weiDecimals: 5,
      index: 1,
      tokenId: "0xc1fb593aeffbeb02f85e0308e9956a90",
      isCanonical: true,
      evmContract: null,
      fullName: null,
      deployerTradingFeeShare: "0.0",
    },
  ],
};
