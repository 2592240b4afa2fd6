import { describe, expect, it } from "vitest";
import { testVenue } from "./helpers.ts";

/**
 * Mainnet `meta` as recorded on 2025-11-11 in the sample response of SwellNetwork/hyperliquid-go-sdk
 * (perp.go, commit 8a8a7e9): [name, szDecimals, maxLeverage, marginTableId] of every main-dex market
 * the sim lists, and the tiered margin tables they use.
 */
const RECORDED_UNIVERSE: [string, number, number, number][] = [
  ["BTC", 5, 40, 56],
  ["ETH", 4, 25, 55],
  ["SOL", 2, 20, 54],
  ["HYPE", 2, 10, 52],
  ["ARB", 1, 10, 51],
  ["DOGE", 0, 10, 52],
  ["AVAX", 2, 10, 52],
  ["LINK", 1, 10, 52],
  ["XRP", 0, 20, 53],
  ["SUI", 1, 10, 52],
  ["ENA", 0, 10, 52],
  ["FARTCOIN", 1, 10, 52],
  ["kPEPE", 0, 10, 52],
  ["BNB", 3, 10, 51],
  ["LTC", 2, 10, 52],
  ["ADA", 0, 10, 52],
  ["WIF", 0, 10, 52],
  ["TRUMP", 1, 10, 52],
  ["AAVE", 2, 10, 52],
  ["NEAR", 1, 10, 52],
  ["APT", 2, 10, 52],
  ["TAO", 3, 5, 5],
  ["OP", 1, 10, 51],
  ["SEI", 0, 10, 51],
  ["TIA", 1, 10, 52],
  ["INJ", 1, 10, 51],
  ["ONDO", 0, 10, 51],
  ["WLD", 1, 10, 52],
  ["kBONK", 0, 10, 52],
  ["CRV", 1, 10, 52],
  ["BCH", 3, 10, 52],
  ["UNI", 1, 10, 52],
  ["DOT", 1, 10, 51],
  ["TON", 1, 10, 51],
];
const RECORDED_TIERED_TABLES: [number, unknown][] = [
  [
    51,
    {
      description: "tiered 10x",
      marginTiers: [
        { lowerBound: "0.0", maxLeverage: 10 },
        { lowerBound: "3000000.0", maxLeverage: 5 },
      ],
    },
  ],
  [
    52,
    {
      description: "tiered 10x (2)",
      marginTiers: [
        { lowerBound: "0.0", maxLeverage: 10 },
        { lowerBound: "20000000.0", maxLeverage: 5 },
      ],
    },
  ],
  [
    53,
    {
      description: "tiered 20x",
      marginTiers: [
        { lowerBound: "0.0", maxLeverage: 20 },
        { lowerBound: "40000000.0", maxLeverage: 10 },
      ],
    },
  ],
  [
    54,
    {
      description: "tiered 20x (2)",
      marginTiers: [
        { lowerBound: "0.0", maxLeverage: 20 },
        { lowerBound: "70000000.0", maxLeverage: 10 },
      ],
    },
  ],
  [
    55,
    {
      description: "tiered 25x",
      marginTiers: [
        { lowerBound: "0.0", maxLeverage: 25 },
        { lowerBound: "100000000.0", maxLeverage: 15 },
      ],
    },
  ],
  [
    56,
    {
      description: "tiered 40x",
      marginTiers: [
        { lowerBound: "0.0", maxLeverage: 40 },
        { lowerBound: "150000000.0", maxLeverage: 20 },
      ],
    },
  ],
];

interface Meta {
  universe: { name: string; szDecimals: number; maxLeverage: number; marginTableId: number }[];
  marginTables: [number, unknown][];
}

describe("the main-dex universe matches Hyperliquid's recorded meta", () => {
  it("szDecimals, maxLeverage and margin table of every listed coin", () => {
    const meta = testVenue().venue.info({ type: "meta" }) as Meta;
    const listed = meta.universe.map((u) => [u.name, u.szDecimals, u.maxLeverage, u.marginTableId]);
    expect(listed).toEqual(RECORDED_UNIVERSE);
  });

  it("the tiered margin tables, descriptions included", () => {
    const meta = testVenue().venue.info({ type: "meta" }) as Meta;
    const tiered = meta.marginTables.filter(([id]) => id > 50);
    expect(tiered).toEqual(RECORDED_TIERED_TABLES);
  });
});
