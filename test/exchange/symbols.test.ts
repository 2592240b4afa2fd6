import { describe, expect, it } from "vitest";
import {
  canonicalInstrument,
  coinToInstrument,
  instrumentToCoin,
  SymbolTable,
  UnknownInstrumentError,
} from "../../src/exchange/symbols.ts";

const table = SymbolTable.fromMeta(
  [null, { name: "xyz" }, { name: "yex" }],
  new Map([
    [
      "",
      {
        universe: [
          { name: "BTC", szDecimals: 5, maxLeverage: 40 },
          { name: "ETH", szDecimals: 4, maxLeverage: 25 },
          { name: "kPEPE", szDecimals: 0, maxLeverage: 10 },
          { name: "OLD", szDecimals: 1, maxLeverage: 3, isDelisted: true },
        ],
      },
    ],
    ["xyz", { universe: [{ name: "xyz:SPCX", szDecimals: 2, maxLeverage: 5, onlyIsolated: true }] }],
    [
      "yex",
      {
        universe: [
          { name: "yex:FOO", szDecimals: 1, maxLeverage: 3 },
          { name: "yex:BTCSWP", szDecimals: 1, maxLeverage: 5 },
          { name: "yex:VXX", szDecimals: 2, maxLeverage: 5 },
          { name: "yex:US3M", szDecimals: 2, maxLeverage: 5 },
        ],
      },
    ],
  ]),
);

describe("instrument naming", () => {
  it.each([
    ["ETH-PERP", "ETH"],
    ["eth-perp", "ETH"],
    ["ETH", "ETH"],
    ["VXX-USDYP", "yex:VXX"],
    ["vxx-usdyp", "yex:VXX"],
    ["US3M-USDYP", "yex:US3M"],
    ["BTCSWP-USDYP", "yex:BTCSWP"],
    ["yex:vxx", "yex:VXX"],
    ["YEX:VXX", "yex:VXX"],
    ["xyz:SPCX", "xyz:SPCX"],
    ["XYZ:spcx", "xyz:SPCX"],
  ])("%s → coin %s", (input, coin) => {
    expect(instrumentToCoin(input)).toBe(coin);
  });

  it.each([
    ["ETH", "ETH-PERP"],
    ["yex:VXX", "VXX-USDYP"],
    ["yex:US3M", "US3M-USDYP"],
    ["yex:BTCSWP", "BTCSWP-USDYP"],
    ["yex:FOO", "yex:FOO"],
    ["xyz:SPCX", "xyz:SPCX"],
  ])("coin %s → instrument %s", (coin, instrument) => {
    expect(coinToInstrument(coin)).toBe(instrument);
  });

  it("canonicalises case variants (predecessor bug: lower-case yield names were left as unknown perps)", () => {
    expect(canonicalInstrument("vxx-usdyp")).toBe("VXX-USDYP");
    expect(canonicalInstrument("yex:vxx")).toBe("VXX-USDYP");
    expect(canonicalInstrument("eth-perp")).toBe("ETH-PERP");
    expect(canonicalInstrument("eth")).toBe("ETH-PERP");
  });

  it("refuses an unknown *-USDYP instead of guessing a standard perp (predecessor bug)", () => {
    expect(() => instrumentToCoin("FOO-USDYP")).toThrow(UnknownInstrumentError);
    expect(() => instrumentToCoin("FOO-USDYP")).toThrow(/unknown yield perp "FOO-USDYP"/);
  });

  it("refuses names that are not instruments", () => {
    for (const bad of ["", "  ", "ETH PERP", "a:b:c", "ETH-USD", "-PERP"]) {
      expect(() => instrumentToCoin(bad), bad).toThrow(UnknownInstrumentError);
    }
  });
});

describe("SymbolTable", () => {
  it("gives main-dex asset ids by index and HIP-3 ids as 100000 + dex·10000 + index", () => {
    expect(table.resolve("BTC-PERP").assetId).toBe(0);
    expect(table.resolve("ETH-PERP")).toMatchObject({ coin: "ETH", assetId: 1, szDecimals: 4, dex: "" });
    expect(table.resolve("xyz:SPCX")).toMatchObject({ assetId: 110_000, dex: "xyz", onlyIsolated: true });
    expect(table.resolve("yex:FOO")).toMatchObject({ instrument: "yex:FOO", assetId: 120_000 });
    expect(table.resolve("BTCSWP-USDYP")).toMatchObject({ coin: "yex:BTCSWP", assetId: 120_001 });
    expect(table.resolve("vxx-usdyp")).toMatchObject({
      instrument: "VXX-USDYP",
      assetId: 120_002,
      szDecimals: 2,
    });
  });

  it("carries what a market's fees follow: its HIP-3 dex's deployer fee scale and the asset's growth mode", () => {
    const fees = SymbolTable.fromMeta(
      [null, { name: "xyz", deployerFeeScale: "0.5" }],
      new Map([
        ["", { universe: [{ name: "ETH", szDecimals: 4, maxLeverage: 25 }] }],
        [
          "xyz",
          {
            universe: [
              { name: "xyz:SPCX", szDecimals: 2, maxLeverage: 5 },
              { name: "xyz:GOLD", szDecimals: 2, maxLeverage: 5, growthMode: "enabled" },
            ],
          },
        ],
      ]),
    );
    const eth = fees.resolve("ETH-PERP");
    expect(eth.deployerFeeScale).toBeUndefined();
    expect(eth.growthMode).toBeUndefined();
    expect(fees.resolve("xyz:SPCX")).toMatchObject({ deployerFeeScale: "0.5" });
    expect(fees.resolve("xyz:SPCX").growthMode).toBeUndefined();
    expect(fees.resolve("xyz:GOLD")).toMatchObject({ deployerFeeScale: "0.5", growthMode: true });
  });

  it("resolves YEX names for leverage and orders alike (predecessor sent VXX-USDYP raw to leverage)", () => {
    expect(table.resolve("VXX-USDYP").coin).toBe("yex:VXX");
    expect(table.byAssetId(120_003)?.instrument).toBe("US3M-USDYP");
  });

  it("finds mixed-case coins in any case", () => {
    expect(table.resolve("kpepe-perp")).toMatchObject({
      coin: "kPEPE",
      instrument: "kPEPE-PERP",
      assetId: 2,
    });
    expect(table.byCoin("KPEPE")?.coin).toBe("kPEPE");
  });

  it("skips delisted assets but keeps the ids of the others", () => {
    expect(() => table.resolve("OLD-PERP")).toThrow(/unknown instrument/);
    expect(table.markets()).toHaveLength(8);
  });

  it("refuses instruments the exchange does not list", () => {
    expect(() => table.resolve("DOGE-PERP")).toThrow(UnknownInstrumentError);
  });
});
