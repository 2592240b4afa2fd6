import { describe, expect, it } from "vitest";
import { ALICE, BOB, BTC, CAROL, ETH, testVenue } from "./helpers.ts";

const CLOID = "0x00000000000000000000000000000abc";

describe("matching and order management", () => {
  it("matches by price, then time, at the maker's price", () => {
    const t = testVenue();
    t.order(ALICE, { a: BTC, b: false, p: "97010", s: "0.01" }); // oid 1
    t.order(CAROL, { a: BTC, b: false, p: "97000", s: "0.01" }); // oid 2, better price
    t.order(BOB, { a: BTC, b: false, p: "97000", s: "0.01" }); // oid 3, same price, later
    const r = t.order(ALICE === BOB ? CAROL : "0x4444444444444444444444444444444444444444", {
      a: BTC,
      b: true,
      p: "97020",
      s: "0.025",
    });
    // 0.01 @97000 (Carol) + 0.01 @97000 (Bob) + 0.005 @97010 (Alice) → avg 97002
    expect(r).toEqual({ filled: { totalSz: "0.025", avgPx: "97002", oid: 4 } });
    const book = t.venue.info({ type: "l2Book", coin: "BTC" }) as {
      levels: { px: string; sz: string; n: number }[][];
    };
    expect(book.levels[1]).toEqual([{ px: "97010", sz: "0.005", n: 1 }]);
    const carol = t.venue.info({ type: "userFills", user: CAROL }) as Record<string, unknown>[];
    const bob = t.venue.info({ type: "userFills", user: BOB }) as Record<string, unknown>[];
    expect(carol[0]!.tid).toBeLessThan(bob[0]!.tid as number);
  });

  it("charges taker 0.045% and maker 0.015% and reports both sides of a fill", () => {
    const t = testVenue();
    t.order(ALICE, { a: BTC, b: false, p: "100000", s: "0.1" });
    t.order(BOB, { a: BTC, b: true, p: "100000", s: "0.1" });
    const [a] = t.venue.info({ type: "userFills", user: ALICE }) as Record<string, unknown>[];
    const [b] = t.venue.info({ type: "userFills", user: BOB }) as Record<string, unknown>[];
    expect(a).toMatchObject({
      side: "A",
      crossed: false,
      fee: "1.5",
      dir: "Open Short",
      startPosition: "0",
      feeToken: "USDC",
    });
    expect(b).toMatchObject({ side: "B", crossed: true, fee: "4.5", dir: "Open Long", closedPnl: "0" });
    expect(a!.builderFee).toBeUndefined();
    expect(a!.hash).toBe(b!.hash);
    expect(a!.tid).toBe(b!.tid);
    expect(t.venue.feesCollected()).toBe("6");
  });

  it("realizes PnL on close with weighted entry and reports dir / startPosition", () => {
    const t = testVenue();
    t.order(ALICE, { a: ETH, b: false, p: "3000", s: "1" });
    t.order(BOB, { a: ETH, b: true, p: "3000", s: "1" });
    t.order(ALICE, { a: ETH, b: false, p: "3100", s: "1" });
    t.order(BOB, { a: ETH, b: true, p: "3100", s: "1" });
    expect(t.state(BOB).assetPositions[0]!.position).toMatchObject({ szi: "2", entryPx: "3050" });
    t.order(ALICE, { a: ETH, b: true, p: "3200", s: "3" });
    t.order(BOB, { a: ETH, b: false, p: "3200", s: "3" });
    const fills = t.venue.info({ type: "userFills", user: BOB }) as Record<string, unknown>[];
    expect(fills[0]).toMatchObject({ dir: "Long > Short", startPosition: "2", closedPnl: "300", sz: "3" });
    expect(t.state(BOB).assetPositions[0]!.position).toMatchObject({ szi: "-1", entryPx: "3200" });
  });

  it("cancels by oid and by cloid, and reports order status", () => {
    const t = testVenue();
    expect(t.order(ALICE, { a: BTC, b: true, p: "90000", s: "0.01", c: CLOID })).toEqual({
      resting: { oid: 1, cloid: CLOID },
    });
    t.order(ALICE, { a: BTC, b: true, p: "90001", s: "0.01" });
    const open = t.venue.info({ type: "openOrders", user: ALICE }) as Record<string, unknown>[];
    expect(open.map((o) => o.oid)).toEqual([2, 1]);
    expect(open[1]).toEqual({
      coin: "BTC",
      side: "B",
      limitPx: "90000",
      sz: "0.01",
      oid: 1,
      timestamp: t.clock.now,
      origSz: "0.01",
      cloid: CLOID,
    });
    const front = t.venue.info({ type: "frontendOpenOrders", user: ALICE }) as Record<string, unknown>[];
    expect(front[0]).toMatchObject({
      orderType: "Limit",
      tif: "Gtc",
      isTrigger: false,
      reduceOnly: false,
      cloid: null,
    });

    expect(t.ex(ALICE, { type: "cancelByCloid", cancels: [{ asset: BTC, cloid: CLOID }] })).toEqual({
      status: "ok",
      response: { type: "cancel", data: { statuses: ["success"] } },
    });
    expect(
      t.ex(ALICE, {
        type: "cancel",
        cancels: [
          { a: BTC, o: 2 },
          { a: BTC, o: 2 },
          { a: ETH, o: 99 },
        ],
      }),
    ).toEqual({
      status: "ok",
      response: {
        type: "cancel",
        data: {
          statuses: [
            "success",
            { error: "Order was never placed, already canceled, or filled. asset=0" },
            { error: "Order was never placed, already canceled, or filled. asset=1" },
          ],
        },
      },
    });
    // Another user cannot cancel Alice's order.
    t.order(ALICE, { a: BTC, b: true, p: "90002", s: "0.01" });
    const r = t.ex(BOB, { type: "cancel", cancels: [{ a: BTC, o: 3 }] });
    expect(JSON.stringify(r)).toContain("never placed");

    expect(t.venue.info({ type: "orderStatus", user: ALICE, oid: CLOID })).toMatchObject({
      status: "order",
      order: { status: "canceled", order: { oid: 1, cloid: CLOID } },
    });
    expect(t.venue.info({ type: "orderStatus", user: ALICE, oid: 3 })).toMatchObject({
      order: { status: "open" },
    });
    expect(t.venue.info({ type: "orderStatus", user: ALICE, oid: 777 })).toEqual({ status: "unknownOid" });
    const hist = t.venue.info({ type: "historicalOrders", user: ALICE }) as {
      status: string;
      order: { oid: number };
    }[];
    expect(hist.map((h) => [h.order.oid, h.status])).toEqual([
      [3, "open"],
      [2, "canceled"],
      [1, "canceled"],
    ]);
  });

  it("refuses a cloid already used by an open order", () => {
    const t = testVenue();
    t.order(ALICE, { a: BTC, b: true, p: "90000", s: "0.01", c: CLOID });
    expect(t.order(ALICE, { a: BTC, b: true, p: "90000", s: "0.01", c: CLOID })).toEqual({
      error: "Duplicate cloid.",
    });
  });

  it("rests the remainder of a partially filled Gtc and reports an Ioc's partial fill", () => {
    const t = testVenue();
    t.order(BOB, { a: BTC, b: false, p: "97000", s: "0.01" });
    expect(t.order(ALICE, { a: BTC, b: true, p: "97000", s: "0.03" })).toEqual({ resting: { oid: 2 } });
    const open = t.venue.info({ type: "openOrders", user: ALICE }) as Record<string, unknown>[];
    expect(open[0]).toMatchObject({ sz: "0.02", origSz: "0.03" });
    t.order(CAROL, { a: BTC, b: true, p: "96000", s: "0.01" });
    expect(t.order(BOB, { a: BTC, b: false, p: "90000", s: "0.05", t: { limit: { tif: "Ioc" } } })).toEqual({
      filled: { totalSz: "0.03", avgPx: "96666.6666667", oid: 4 },
    });
    expect(t.venue.info({ type: "openOrders", user: BOB })).toEqual([]);
  });

  it("cancels the resting order on a self-trade instead of matching it", () => {
    const t = testVenue();
    t.order(ALICE, { a: BTC, b: false, p: "97000", s: "0.01" });
    t.order(BOB, { a: BTC, b: false, p: "97001", s: "0.01" });
    expect(t.order(ALICE, { a: BTC, b: true, p: "97001", s: "0.01" })).toMatchObject({
      filled: { avgPx: "97001" },
    });
    expect(t.venue.info({ type: "orderStatus", user: ALICE, oid: 1 })).toMatchObject({
      order: { status: "selfTradeCanceled" },
    });
  });

  it("clamps reduce-only orders to the position and cancels a resting one once flat", () => {
    const t = testVenue();
    t.order(BOB, { a: BTC, b: false, p: "97000", s: "0.01" });
    t.order(ALICE, { a: BTC, b: true, p: "97000", s: "0.01" });
    // Alice is long 0.01: a reduce-only sell of 0.05 is clamped to 0.01.
    expect(t.order(ALICE, { a: BTC, b: false, p: "98000", s: "0.05", r: true })).toEqual({
      resting: { oid: 3 },
    });
    const open = t.venue.info({ type: "openOrders", user: ALICE }) as Record<string, unknown>[];
    expect(open[0]).toMatchObject({ sz: "0.01", reduceOnly: true });
    // She closes elsewhere; the reduce-only order must not open a short when hit.
    t.order(CAROL, { a: BTC, b: true, p: "96000", s: "0.01" });
    t.order(ALICE, { a: BTC, b: false, p: "96000", s: "0.01" });
    expect(t.state(ALICE).assetPositions).toEqual([]);
    t.order(CAROL, { a: BTC, b: true, p: "98000", s: "0.01", t: { limit: { tif: "Ioc" } } });
    expect(t.state(ALICE).assetPositions).toEqual([]);
    expect(t.venue.info({ type: "orderStatus", user: ALICE, oid: 3 })).toMatchObject({
      order: { status: "reduceOnlyCanceled" },
    });
  });

  it("aggregates l2 levels by significant figures", () => {
    const t = testVenue();
    for (const p of ["96991", "96995", "96901", "96899"]) t.order(BOB, { a: BTC, b: true, p, s: "0.001" });
    const book = t.venue.info({ type: "l2Book", coin: "BTC", nSigFigs: 3 }) as {
      levels: { px: string; n: number }[][];
    };
    expect(book.levels[0]).toEqual([
      { px: "96900", sz: "0.003", n: 3 },
      { px: "96800", sz: "0.001", n: 1 },
    ]);
  });

  it("updates leverage (cross on the main dex) and uses it for margin", () => {
    const t = testVenue({ balance: "1000" });
    expect(t.ex(ALICE, { type: "updateLeverage", asset: BTC, isCross: true, leverage: 41 })).toEqual({
      status: "err",
      response: "Invalid leverage value. Max leverage for BTC is 40x.",
    });
    expect(t.ex(ALICE, { type: "updateLeverage", asset: BTC, isCross: true, leverage: 2 })).toEqual({
      status: "ok",
      response: { type: "default" },
    });
    expect(t.order(ALICE, { a: BTC, b: true, p: "90000", s: "0.03" })).toMatchObject({
      error: expect.stringContaining("Insufficient margin"),
    });
    expect(t.order(ALICE, { a: BTC, b: true, p: "90000", s: "0.02" })).toMatchObject({ resting: {} });
  });
});
