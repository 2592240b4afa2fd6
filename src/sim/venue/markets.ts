import { readFileSync } from "node:fs";

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
  /** Isolated margin only (meta.onlyIsolated). */
  onlyIsolated?: boolean;
  /** Delisted: listed in meta (its asset id stays taken) but no longer traded. */
  isDelisted?: boolean;
  /** meta.marginMode where the exchange sets one ("strictIsolated", "noCross"). */
  marginMode?: string;
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
 * leverage; 50–56 are the main dex's listed tables (notional lower bounds in USD), as recorded.
 */
export interface MarginTier {
  lowerBound: number;
  maxLeverage: number;
}

/** One main-dex perp of the recorded mainnet `metaAndAssetCtxs`: its meta entry and asset context. */
interface RecordedPerp {
  name: string;
  szDecimals: number;
  maxLeverage: number;
  marginTableId: number;
  onlyIsolated?: boolean;
  marginMode?: string;
  isDelisted?: boolean;
  /** Asset context at the recording: mark price, 24 h notional volume (USD), open interest (coins), funding. */
  markPx: string;
  dayNtlVlm: string;
  openInterest: string;
  funding: string;
}

interface RecordedMeta {
  source: string;
  recordedOn: string;
  marginTables: [
    number,
    { description: string; marginTiers: { lowerBound: string; maxLeverage: number }[] },
  ][];
  universe: RecordedPerp[];
}

/** The main dex as mainnet listed it (src/sim/recorded: its source and date are in the file). */
export const MAINNET_META: RecordedMeta = JSON.parse(
  readFileSync(new URL("../recorded/mainnet-meta-2025-11-11.json", import.meta.url), "utf8"),
) as RecordedMeta;

/**
 * The yex dex's one margin table, as its deployer publishes it (docs.nunchi.trade, "YEX Perps
 * Specifications": max leverage 20× from $0, 5× from $500,000, 2× from $5,000,000). Its id is the
 * sim's own: the dex's meta is not on record.
 */
const YEX_MARGIN_TABLE_ID = 60;

export const TIERED_MARGIN_TABLES: Record<number, { description: string; marginTiers: MarginTier[] }> = {
  ...Object.fromEntries(
    MAINNET_META.marginTables.map(([id, t]) => [
      id,
      {
        description: t.description,
        marginTiers: t.marginTiers.map((x) => ({
          lowerBound: Number(x.lowerBound),
          maxLeverage: x.maxLeverage,
        })),
      },
    ]),
  ),
  [YEX_MARGIN_TABLE_ID]: {
    description: "yex tiered 20x",
    marginTiers: [
      { lowerBound: 0, maxLeverage: 20 },
      { lowerBound: 500_000, maxLeverage: 5 },
      { lowerBound: 5_000_000, maxLeverage: 2 },
    ],
  },
};

/** The tiers of a market's table: a tiered table, or one flat tier at its max leverage. */
export function marginTiers(spec: Pick<MarketSpec, "maxLeverage" | "marginTableId">): MarginTier[] {
  const id = spec.marginTableId ?? spec.maxLeverage;
  return TIERED_MARGIN_TABLES[id]?.marginTiers ?? [{ lowerBound: 0, maxLeverage: spec.maxLeverage }];
}

/** BTC and ETH price their impact at $20k, like the exchange's impact notional for them. */
const BIG_IMPACT = new Set(["BTC", "ETH"]);

/** Every main-dex perp of the recording, in universe order, so asset ids are mainnet's. */
const mainMarkets = (): MarketSpec[] =>
  MAINNET_META.universe.map((u) => ({
    dex: "",
    name: u.name,
    szDecimals: u.szDecimals,
    maxLeverage: u.maxLeverage,
    marginTableId: u.marginTableId,
    ...(u.onlyIsolated ? { onlyIsolated: true } : {}),
    ...(u.isDelisted ? { isDelisted: true } : {}),
    ...(u.marginMode ? { marginMode: u.marginMode } : {}),
    startPx: u.markPx,
    ...(BIG_IMPACT.has(u.name) ? { impactNotionalUsd: 20_000 } : {}),
  }));

interface RecordedHip3 {
  name: string;
  szDecimals: number;
  maxLeverage: number;
  marginTableId?: number;
  markPx: string;
}

/** The HIP-3 markets on record (src/sim/recorded/hip3-markets.json says where each fact comes from). */
const HIP3_RECORD = JSON.parse(
  readFileSync(new URL("../recorded/hip3-markets.json", import.meta.url), "utf8"),
) as Record<"xyz" | "yex", { universe: RecordedHip3[] }>;

/**
 * xyz: the dex's universe indices 0–2 as recorded, then SPCX (its mainnet index is not on record).
 * yex: isolated only, at most 20× under the dex's tiered table (Nunchi's YEX specification).
 */
const hip3Markets = (): MarketSpec[] => [
  ...HIP3_RECORD.xyz.universe.map((u) => ({
    dex: "xyz",
    name: u.name,
    szDecimals: u.szDecimals,
    maxLeverage: u.maxLeverage,
    marginTableId: u.marginTableId ?? u.maxLeverage,
    startPx: u.markPx,
  })),
  ...HIP3_RECORD.yex.universe.map((u) => ({
    dex: "yex",
    name: u.name,
    szDecimals: u.szDecimals,
    maxLeverage: u.maxLeverage,
    marginTableId: YEX_MARGIN_TABLE_ID,
    onlyIsolated: true,
    startPx: u.markPx,
  })),
];

/**
 * The listed markets: every main-dex perp of the recorded mainnet meta (delisted ones keep their
 * slot, as on mainnet, so every asset id is mainnet's), then the HIP-3 markets.
 */
export const DEFAULT_MARKETS: MarketSpec[] = [...mainMarkets(), ...hip3Markets()];

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
