import { describe, expect, it } from "vitest";
import { testVenue } from "./helpers.ts";

/**
 * Mainnet `meta` as recorded on 2025-11-11 in the sample response of SwellNetwork/hyperliquid-go-sdk
 * (perp.go, commit 8a8a7e9), read off the recording by hand: [name, asset id (universe index),
 * szDecimals, maxLeverage, marginTableId]. An id cached on paper must trade the same coin live.
 */
const RECORDED: [string, number, number, number, number][] = [
  ["BTC", 0, 5, 40, 56],
  ["ETH", 1, 4, 25, 55],
  ["ATOM", 2, 2, 5, 5],
  ["SOL", 5, 2, 20, 54],
  ["ARB", 11, 1, 10, 51],
  ["DOGE", 12, 0, 10, 52],
  ["XRP", 25, 0, 20, 53],
  ["TON", 66, 1, 10, 51],
  ["HYPE", 159, 2, 10, 52],
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
  universe: {
    name: string;
    szDecimals: number;
    maxLeverage: number;
    marginTableId: number;
    isDelisted?: boolean;
  }[];
  marginTables: [number, unknown][];
}

describe("the main-dex universe matches Hyperliquid's recorded meta", () => {
  it("asset ids, szDecimals, maxLeverage and margin tables are mainnet's; 220 entries, at least 150 listed", () => {
    const meta = testVenue().venue.info({ type: "meta" }) as Meta;
    for (const [name, asset, szDecimals, maxLeverage, marginTableId] of RECORDED) {
      expect(meta.universe[asset], name).toEqual(
        expect.objectContaining({ name, szDecimals, maxLeverage, marginTableId }),
      );
    }
    expect(meta.universe).toHaveLength(220);
    expect(meta.universe.filter((u) => !u.isDelisted).length).toBeGreaterThanOrEqual(150);
    expect(meta.universe[3]).toMatchObject({ name: "MATIC", isDelisted: true });
  });

  it("the tiered margin tables, descriptions included", () => {
    const meta = testVenue().venue.info({ type: "meta" }) as Meta;
    const tiered = meta.marginTables.filter(([id]) => id > 50);
    expect(tiered).toEqual(RECORDED_TIERED_TABLES);
  });
});
