/** The sim world's listed perpetual markets: the main dex plus the HIP-3 dexes `xyz` and `yex`. */

export interface MarketSpec {
  /** "" for the main dex, otherwise the HIP-3 dex name. */
  dex: string;
  /** Coin as it appears on the wire; HIP-3 names carry the dex prefix ("yex:VXX"). */
  name: string;
  szDecimals: number;
  maxLeverage: number;
  /** Margin table (meta.marginTableId); default: the flat table at maxLeverage. */
  marginTableId?: number;
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
  /** Open-interest cap (USD) of each of the dex's markets, unless `createVenue({ limits })` overrides it. */
  openInterestCapUsd: number;
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
  openInterestCapUsd: 1_000_000_000,
};

/**
 * HIP-3 dexes in perpDexs order (index 1, 2, …). Fees are twice the main dex's: Hyperliquid charges
 * HIP-3 trades its base rate times (scale + max(scale, 1)) for a deployer fee scale of at most 1, half
 * of it going to the deployer at scale 1 (docs: "HIP-3: Builder-deployed perpetuals"; perpDexs
 * publishes `deployerFeeScale` "1.0"). Growth mode (≥ 90 % off for markets disjoint from the validator
 * perps) is not modelled: whether these dexes switched it on is not published.
 */
export const HIP3_DEXES: DexSpec[] = [
  {
    name: "xyz",
    fullName: "XYZ",
    deployer: "0x88806a71d74ad0a510b350545c9ae490912f0888",
    takerFee: 90,
    makerFee: 30,
    fundingMultiplier: "0.5",
    fundingInterestRate: "0.0000125",
    // Sim stand-in: trade.xyz publishes no cap for SPCX.
    openInterestCapUsd: 50_000_000,
  },
  {
    name: "yex",
    fullName: "YEX yield perps",
    deployer: "0x9e5c0000000000000000000000000000000000e5",
    takerFee: 90,
    makerFee: 30,
    fundingMultiplier: "1",
    fundingInterestRate: "0.0000125",
    // Nunchi's YEX specification: "Open Interest Cap $10,000,000" for VXX, US3M and BTCSWP alike.
    openInterestCapUsd: 10_000_000,
  },
];

/**
 * Hyperliquid's margin tables (meta.marginTables): a table id under 50 is one flat tier at that
 * leverage; 51–56 are the tiered tables of the main dex (notional lower bounds in USD).
 */
export interface MarginTier {
  lowerBound: number;
  maxLeverage: number;
}
/**
 * The yex dex's one margin table, as its deployer publishes it (docs.nunchi.trade, "YEX Perps
 * Specifications": max leverage 20× from $0, 5× from $500,000, 2× from $5,000,000). Its id is the
 * sim's own: the dex's meta is not on record.
 */
export const YEX_MARGIN_TABLE_ID = 60;

export const TIERED_MARGIN_TABLES: Record<number, { description: string; marginTiers: MarginTier[] }> = {
  51: { description: "tiered 10x", marginTiers: tiers(10, 3_000_000, 5) },
  52: { description: "tiered 10x (2)", marginTiers: tiers(10, 20_000_000, 5) },
  53: { description: "tiered 20x", marginTiers: tiers(20, 40_000_000, 10) },
  54: { description: "tiered 20x (2)", marginTiers: tiers(20, 70_000_000, 10) },
  55: { description: "tiered 25x", marginTiers: tiers(25, 100_000_000, 15) },
  56: { description: "tiered 40x", marginTiers: tiers(40, 150_000_000, 20) },
  [YEX_MARGIN_TABLE_ID]: {
    description: "yex tiered 20x",
    marginTiers: [
      { lowerBound: 0, maxLeverage: 20 },
      { lowerBound: 500_000, maxLeverage: 5 },
      { lowerBound: 5_000_000, maxLeverage: 2 },
    ],
  },
};

function tiers(first: number, bound: number, second: number): MarginTier[] {
  return [
    { lowerBound: 0, maxLeverage: first },
    { lowerBound: bound, maxLeverage: second },
  ];
}

/** The tiers of a market's table: a tiered table, or one flat tier at its max leverage. */
export function marginTiers(spec: MarketSpec): MarginTier[] {
  const id = spec.marginTableId ?? spec.maxLeverage;
  return TIERED_MARGIN_TABLES[id]?.marginTiers ?? [{ lowerBound: 0, maxLeverage: spec.maxLeverage }];
}

const main = (
  name: string,
  szDecimals: number,
  maxLeverage: number,
  marginTableId: number,
  startPx: string,
  impactNotionalUsd?: number,
): MarketSpec => ({
  dex: "",
  name,
  szDecimals,
  maxLeverage,
  marginTableId,
  startPx,
  ...(impactNotionalUsd ? { impactNotionalUsd } : {}),
});

/** A yex market: isolated only, at most 20× under the dex's tiered table. */
const yex = (name: string, startPx: string): MarketSpec => ({
  dex: "yex",
  name,
  szDecimals: 2,
  maxLeverage: 20,
  marginTableId: YEX_MARGIN_TABLE_ID,
  onlyIsolated: true,
  startPx,
});

/**
 * The listed markets: the most traded main-dex perps with Hyperliquid's own szDecimals, maxLeverage
 * and margin table ids (mainnet meta), then the HIP-3 markets the product trades. Order is the
 * universe order, so the first eight keep the asset ids they always had.
 */
export const DEFAULT_MARKETS: MarketSpec[] = [
  main("BTC", 5, 40, 56, "97000", 20_000),
  main("ETH", 4, 25, 55, "3400", 20_000),
  main("SOL", 2, 20, 54, "180"),
  main("HYPE", 2, 10, 52, "35"),
  main("ARB", 1, 10, 51, "0.45"),
  main("DOGE", 0, 10, 52, "0.17"),
  main("AVAX", 2, 10, 52, "25"),
  main("LINK", 1, 10, 52, "15"),
  main("XRP", 0, 20, 53, "2.3"),
  main("SUI", 1, 10, 52, "3.5"),
  main("ENA", 0, 10, 52, "0.6"),
  main("FARTCOIN", 1, 10, 52, "1.1"),
  main("kPEPE", 0, 10, 52, "0.012"),
  main("BNB", 3, 10, 51, "700"),
  main("LTC", 2, 10, 52, "90"),
  main("ADA", 0, 10, 52, "0.7"),
  main("WIF", 0, 10, 52, "0.9"),
  main("TRUMP", 1, 10, 52, "9"),
  main("AAVE", 2, 10, 52, "280"),
  main("NEAR", 1, 10, 52, "2.8"),
  main("APT", 2, 10, 52, "5.5"),
  main("TAO", 3, 5, 5, "400"),
  main("OP", 1, 10, 51, "0.8"),
  main("SEI", 0, 10, 51, "0.3"),
  main("TIA", 1, 10, 52, "2.5"),
  main("INJ", 1, 10, 51, "12"),
  main("ONDO", 0, 10, 51, "0.9"),
  main("WLD", 1, 10, 52, "1.2"),
  main("kBONK", 0, 10, 52, "0.02"),
  main("CRV", 1, 10, 52, "0.7"),
  main("BCH", 3, 10, 52, "450"),
  main("UNI", 1, 10, 52, "8"),
  main("DOT", 1, 10, 51, "4"),
  main("TON", 1, 10, 51, "3"),
  { dex: "xyz", name: "xyz:SPCX", szDecimals: 3, maxLeverage: 5, onlyIsolated: true, startPx: "250" },
  yex("yex:VXX", "45"),
  yex("yex:US3M", "4.2"),
  yex("yex:BTCSWP", "8.5"),
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
