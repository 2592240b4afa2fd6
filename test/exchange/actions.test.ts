import { describe, expect, it } from "vitest";
import {
  builderField,
  buildOrder,
  feeRatePercent,
  normalizeStatus,
  type SentOrder,
  settleOrders,
} from "../../src/exchange/actions.ts";
import { RejectedError } from "../../src/exchange/errors.ts";
import type { Market } from "../../src/exchange/symbols.ts";

const eth: Market = {
  instrument: "ETH-PERP",
  coin: "ETH",
  dex: "",
  assetId: 1,
  szDecimals: 4,
  maxLeverage: 25,
  onlyIsolated: false,
};
const vxx: Market = {
  instrument: "VXX-USDYP",
  coin: "yex:VXX",
  dex: "yex",
  assetId: 120_002,
  szDecimals: 2,
  maxLeverage: 5,
  onlyIsolated: false,
};

describe("buildOrder", () => {
  it("rounds to tick and lot in decimal, buys down and sells up", () => {
    const buy = buildOrder({ instrument: "ETH-PERP", side: "buy", size: "0.123456", price: "2500.17" }, eth);
    expect(buy.wire).toEqual({
      a: 1,
      b: true,
      p: "2500.1",
      s: "0.1234",
      r: false,
      t: { limit: { tif: "Gtc" } },
    });
    const sell = buildOrder(
      { instrument: "ETH-PERP", side: "sell", size: 1, price: "2500.11", tif: "Alo", reduceOnly: true },
      eth,
    );
    expect(sell.wire).toEqual({ a: 1, b: false, p: "2500.2", s: "1", r: true, t: { limit: { tif: "Alo" } } });
    expect(sell.sent).toMatchObject({
      instrument: "ETH-PERP",
      coin: "ETH",
      price: "2500.2",
      size: "1",
      tif: "Alo",
      reduceOnly: true,
    });
  });

  it("uses the HIP-3 asset id and carries a valid cloid", () => {
    const cloid = `0x${"0f".repeat(16)}` as const;
    const { wire } = buildOrder(
      { instrument: "VXX-USDYP", side: "buy", size: "3.999", price: "41.234567", cloid, tif: "Ioc" },
      vxx,
    );
    expect(wire).toEqual({
      a: 120_002,
      b: true,
      p: "41.234",
      s: "3.99",
      r: false,
      t: { limit: { tif: "Ioc" } },
      c: cloid,
    });
  });

  it("refuses a malformed cloid", () => {
    expect(() =>
      buildOrder({ instrument: "ETH-PERP", side: "buy", size: 1, price: 1, cloid: "0x12" }, eth),
    ).toThrow(/cloid/);
  });
});

describe("builderField / feeRatePercent", () => {
  it("attaches {b,f} only when configured", () => {
    expect(builderField(undefined)).toEqual({});
    expect(builderField({ address: "0xF8C75F891cb011E2097308b856bEC74f5ea10F20", feeTenthsBps: 25 })).toEqual(
      {
        builder: { b: "0xf8c75f891cb011e2097308b856bec74f5ea10f20", f: 25 },
      },
    );
  });

  it("converts tenths of a bp to the signed percentage", () => {
    expect(feeRatePercent(10)).toBe("0.01%");
    expect(feeRatePercent(100)).toBe("0.1%");
    expect(feeRatePercent(1)).toBe("0.001%");
    expect(feeRatePercent(0)).toBe("0%");
    expect(() => feeRatePercent(1.5)).toThrow(RangeError);
  });
});

const sent: SentOrder = {
  instrument: "ETH-PERP",
  coin: "ETH",
  assetId: 1,
  side: "buy",
  price: "1",
  size: "1",
  tif: "Gtc",
  reduceOnly: false,
};

describe("normalizeStatus / settleOrders", () => {
  it("normalises resting, filled and error statuses", () => {
    expect(normalizeStatus({ resting: { oid: 7 } }, sent)).toEqual({
      status: "resting",
      oid: 7,
      order: sent,
    });
    expect(normalizeStatus({ filled: { oid: 8, totalSz: "0.5", avgPx: "2500.1" } }, sent)).toEqual({
      status: "filled",
      oid: 8,
      totalSz: "0.5",
      avgPx: "2500.1",
      order: sent,
    });
    expect(normalizeStatus({ error: "Insufficient margin" }, sent)).toEqual({
      status: "error",
      message: "Insufficient margin",
      order: sent,
    });
    expect(normalizeStatus("waitingForTrigger", sent).status).toBe("error");
  });

  it("turns per-order refusals into values but re-throws refusals of the whole action", async () => {
    const body = {
      status: "ok",
      response: {
        type: "order",
        data: { statuses: [{ resting: { oid: 1 } }, { error: "Order has invalid price." }] },
      },
    };
    const perOrder = new RejectedError("Order has invalid price.", body, [
      undefined,
      "Order has invalid price.",
    ]);
    const results = await settleOrders(() => Promise.reject(perOrder), [sent, sent]);
    expect(results.map((r) => r.status)).toEqual(["resting", "error"]);

    const whole = new RejectedError("User or API Wallet 0x1 does not exist.", {
      status: "err",
      response: "…",
    });
    await expect(settleOrders(() => Promise.reject(whole), [sent])).rejects.toBe(whole);
  });
});
