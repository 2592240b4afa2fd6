import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BUILDER_FILLS_HEADER,
  type BuilderFillRow,
  builderFillTime,
  decodeBuilderFillsFile,
  encodeBuilderFillsCsv,
  encodeBuilderFillsFile,
  parseBuilderFillsCsv,
} from "../../../src/sim/server/builder-fills-file.ts";

const row: BuilderFillRow = {
  time: builderFillTime(Date.UTC(2026, 8, 18, 0, 0, 8, 765)),
  user: "0xc3be5e9b509facaff8fac229a5ae10345d4ac6dd",
  coin: "yex:BTCSWP",
  side: "Ask",
  px: "1466",
  sz: "0.73",
  crossed: true,
  special_trade_type: "Na",
  tif: "FrontendMarket",
  is_trigger: false,
  counterparty: "0xb46ae034d8ee4e9b40c42c0f5ecc99b0054fbe2d",
  closed_pnl: "-1.25",
  twap_id: "0",
  builder_fee: "0.53509",
};

describe("builder fill file", () => {
  it("writes the official header and second-resolution UTC times", () => {
    const csv = encodeBuilderFillsCsv([row]);
    expect(csv.split("\n")[0]).toBe(BUILDER_FILLS_HEADER);
    expect(csv.split("\n")[1]).toBe(
      "2026-09-18T00:00:08Z,0xc3be5e9b509facaff8fac229a5ae10345d4ac6dd,yex:BTCSWP,Ask,1466,0.73,true,Na,FrontendMarket,false,0xb46ae034d8ee4e9b40c42c0f5ecc99b0054fbe2d,-1.25,0,0.53509",
    );
  });

  it("is an LZ4 frame that round-trips", () => {
    const bytes = encodeBuilderFillsFile([row, { ...row, side: "Bid", crossed: false }]);
    expect([...bytes.slice(0, 4)]).toEqual([0x04, 0x22, 0x4d, 0x18]);
    expect(decodeBuilderFillsFile(bytes)).toEqual([row, { ...row, side: "Bid", crossed: false }]);
  });

  it("round-trips arbitrary rows, including large files", () => {
    const arb = fc.record({
      time: fc.integer({ min: 0, max: 4e12 }).map(builderFillTime),
      user: fc.stringMatching(/^0x[0-9a-f]{40}$/),
      coin: fc.constantFrom("BTC", "ETH", "yex:VXX"),
      side: fc.constantFrom("Bid" as const, "Ask" as const),
      px: fc.integer({ min: 1, max: 1e9 }).map((n) => String(n / 100)),
      sz: fc.integer({ min: 1, max: 1e9 }).map((n) => String(n / 1000)),
      crossed: fc.boolean(),
      special_trade_type: fc.constant("Na"),
      tif: fc.constantFrom("Gtc", "Ioc", "Alo"),
      is_trigger: fc.boolean(),
      counterparty: fc.stringMatching(/^0x[0-9a-f]{40}$/),
      closed_pnl: fc.constant("0"),
      twap_id: fc.constant("0"),
      builder_fee: fc.integer({ min: 0, max: 1e6 }).map((n) => String(n / 1e4)),
    });
    fc.assert(
      fc.property(fc.array(arb, { maxLength: 30 }), (rows) => {
        expect(decodeBuilderFillsFile(encodeBuilderFillsFile(rows))).toEqual(rows);
      }),
      { numRuns: 50 },
    );
    const many = Array.from({ length: 20_000 }, (_, i) => ({ ...row, sz: String(i) }));
    expect(decodeBuilderFillsFile(encodeBuilderFillsFile(many))).toHaveLength(20_000);
  });

  it("rejects a file with the wrong header", () => {
    expect(() => parseBuilderFillsCsv("time,user\n1,2\n")).toThrow(/unexpected builder fills header/);
  });
});
