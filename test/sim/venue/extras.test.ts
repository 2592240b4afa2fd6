import { describe, expect, it } from "vitest";
import { ALICE, BOB, BTC, BUILDER, CAROL, T0, testVenue } from "./helpers.ts";

function openLong(t: ReturnType<typeof testVenue>) {
  t.order(BOB, { a: BTC, b: false, p: "97000", s: "0.1" });
  t.order(ALICE, { a: BTC, b: true, p: "97000", s: "0.1" });
}

describe("trigger orders", () => {
  it("fires a stop-market when the mark falls to the trigger and keeps the oid", () => {
    const t = testVenue();
    openLong(t);
    const sl = t.order(ALICE, {
      a: BTC,
      b: false,
      p: "90000",
      s: "0.1",
      r: true,
      t: { trigger: { isMarket: true, triggerPx: "95000", tpsl: "sl" } },
    }) as { resting: { oid: number } };
    expect(sl).toEqual({ resting: { oid: 3 } });
    const [front] = t.venue.info({ type: "frontendOpenOrders", user: ALICE }) as Record<string, unknown>[];
    expect(front).toMatchObject({
      isTrigger: true,
      triggerPx: "95000",
      triggerCondition: "Price below 95000",
      orderType: "Stop Market",
      tif: null,
      reduceOnly: true,
    });
    t.order(CAROL, { a: BTC, b: true, p: "94000", s: "0.1" }); // liquidity for the stop
    t.venue.setOraclePrice("BTC", "96000");
    expect(t.state(ALICE).assetPositions).toHaveLength(1);
    t.venue.setOraclePrice("BTC", "94500");
    expect(t.state(ALICE).assetPositions).toEqual([]);
    const [fill] = t.venue.info({ type: "userFills", user: ALICE }) as Record<string, unknown>[];
    expect(fill).toMatchObject({ oid: 3, px: "94000", sz: "0.1", dir: "Close Long", crossed: true });
    expect(t.venue.info({ type: "orderStatus", user: ALICE, oid: 3 })).toMatchObject({
      order: { status: "filled" },
    });
  });

  it("rests a take-profit limit once triggered, and cancels a reduce-only trigger with nothing to reduce", () => {
    const t = testVenue();
    openLong(t);
    t.order(ALICE, {
      a: BTC,
      b: false,
      p: "99000",
      s: "0.1",
      r: true,
      t: { trigger: { isMarket: false, triggerPx: "98500", tpsl: "tp" } },
    });
    t.venue.setOraclePrice("BTC", "98600");
    const open = t.venue.info({ type: "openOrders", user: ALICE }) as Record<string, unknown>[];
    expect(open).toMatchObject([{ oid: 3, limitPx: "99000", sz: "0.1", reduceOnly: true }]);
    const book = t.venue.info({ type: "l2Book", coin: "BTC" }) as { levels: { px: string }[][] };
    expect(book.levels[1]![0]!.px).toBe("99000");

    const u = testVenue();
    u.order(ALICE, {
      a: BTC,
      b: false,
      p: "90000",
      s: "0.1",
      r: true,
      t: { trigger: { isMarket: true, triggerPx: "95000", tpsl: "sl" } },
    });
    u.venue.setOraclePrice("BTC", "94000");
    expect(u.venue.info({ type: "orderStatus", user: ALICE, oid: 1 })).toMatchObject({
      order: { status: "reduceOnlyCanceled" },
    });
  });

  it("closes the whole position with a size-0 reduce-only trigger (position tp/sl)", () => {
    const t = testVenue();
    openLong(t);
    t.order(ALICE, {
      a: BTC,
      b: false,
      p: "90000",
      s: "0",
      r: true,
      t: { trigger: { isMarket: true, triggerPx: "95000", tpsl: "sl" } },
    });
    t.order(CAROL, { a: BTC, b: true, p: "94000", s: "1" });
    t.venue.setOraclePrice("BTC", "94500");
    expect(t.state(ALICE).assetPositions).toEqual([]);
    expect(t.order(ALICE, { a: BTC, b: false, p: "90000", s: "0" })).toEqual({
      error: "Order has zero size.",
    });
  });

  it("cancels a waiting trigger", () => {
    const t = testVenue();
    t.order(ALICE, {
      a: BTC,
      b: true,
      p: "99000",
      s: "0.1",
      t: { trigger: { isMarket: false, triggerPx: "98000", tpsl: "sl" } },
    });
    expect(t.ex(ALICE, { type: "cancel", cancels: [{ a: BTC, o: 1 }] })).toMatchObject({
      response: { data: { statuses: ["success"] } },
    });
    t.venue.setOraclePrice("BTC", "98500");
    expect(t.venue.info({ type: "openOrders", user: ALICE })).toEqual([]);
    expect(t.venue.info({ type: "orderStatus", user: ALICE, oid: 1 })).toMatchObject({
      order: { status: "canceled" },
    });
  });
});

describe("modify, scheduleCancel and no-op actions", () => {
  it("modifies an open order into a new one", () => {
    const t = testVenue();
    t.order(ALICE, { a: BTC, b: true, p: "90000", s: "0.01" });
    const order = { a: BTC, b: true, p: "91000", s: "0.02", r: false, t: { limit: { tif: "Gtc" } } };
    expect(t.ex(ALICE, { type: "modify", oid: 1, order })).toEqual({
      status: "ok",
      response: { type: "default" },
    });
    expect(t.venue.info({ type: "openOrders", user: ALICE })).toMatchObject([
      { oid: 2, limitPx: "91000", sz: "0.02" },
    ]);
    expect(
      t.ex(ALICE, {
        type: "batchModify",
        modifies: [
          { oid: 2, order },
          { oid: 1, order },
        ],
      }),
    ).toEqual({
      status: "ok",
      response: {
        type: "order",
        data: { statuses: [{ resting: { oid: 3 } }, { error: "Cannot modify canceled or filled order" }] },
      },
    });
  });

  it("cancels everything at the scheduled time", () => {
    const t = testVenue({ scheduleCancelAnyVolume: true });
    t.order(ALICE, { a: BTC, b: true, p: "90000", s: "0.01" });
    expect(t.ex(ALICE, { type: "scheduleCancel", time: T0 + 1000 }).status).toBe("err");
    expect(t.ex(ALICE, { type: "scheduleCancel", time: T0 + 10_000 }).status).toBe("ok");
    t.venue.advance(T0 + 9_999);
    expect(t.venue.info({ type: "openOrders", user: ALICE })).toHaveLength(1);
    t.venue.advance(T0 + 10_000);
    expect(t.venue.info({ type: "openOrders", user: ALICE })).toEqual([]);
    expect(t.venue.info({ type: "orderStatus", user: ALICE, oid: 1 })).toMatchObject({
      order: { status: "scheduledCancel" },
    });
  });

  it("accepts transfers between one's own dexes as no-ops", () => {
    const t = testVenue();
    expect(t.ex(ALICE, { type: "usdClassTransfer", amount: "5", toPerp: false }).status).toBe("ok");
    expect(t.ex(ALICE, { type: "usdClassTransfer", amount: "5", toPerp: true }).status).toBe("ok");
    expect(
      t.ex(ALICE, {
        type: "sendAsset",
        destination: ALICE,
        sourceDex: "",
        destinationDex: "yex",
        token: "USDC",
        amount: "5",
      }).status,
    ).toBe("ok");
    expect(
      t.ex(ALICE, {
        type: "sendAsset",
        destination: BOB,
        sourceDex: "",
        destinationDex: "",
        token: "USDC",
        amount: "5",
      }).status,
    ).toBe("err");
  });
});

describe("informational extras", () => {
  it("serves recentTrades, activeAssetData, userFees, referral, extraAgents and userRole", () => {
    const t = testVenue({ balance: "10000" });
    t.ex(ALICE, { type: "approveBuilderFee", maxFeeRate: "0.1%", builder: BUILDER, nonce: 1 });
    t.order(BOB, { a: BTC, b: false, p: "100000", s: "0.1" });
    t.order(ALICE, { a: BTC, b: true, p: "100000", s: "0.1" }, { b: BUILDER, f: 100 });
    expect(t.venue.info({ type: "recentTrades", coin: "BTC" })).toMatchObject([
      { coin: "BTC", side: "B", px: "100000", sz: "0.1", time: T0, tid: 1, users: [ALICE, BOB] },
    ]);
    const aad = t.venue.info({ type: "activeAssetData", user: ALICE, coin: "BTC" }) as Record<
      string,
      unknown
    >;
    expect(aad).toMatchObject({ coin: "BTC", leverage: { type: "cross", value: 20 }, markPx: "97000" });
    expect(t.venue.info({ type: "userFees", user: ALICE })).toMatchObject({
      userCrossRate: "0.00045",
      userAddRate: "0.00015",
    });
    expect(t.venue.info({ type: "referral", user: BUILDER })).toMatchObject({ builderRewards: "10" });
    expect(t.venue.info({ type: "referral", user: ALICE })).toMatchObject({ cumVlm: "10000" });
    const agent = "0xa9e0000000000000000000000000000000000a9e";
    t.ex(ALICE, { type: "approveAgent", agentAddress: agent, agentName: "bot", nonce: 2 });
    expect(t.venue.info({ type: "extraAgents", user: ALICE })).toMatchObject([
      { address: agent, name: "bot" },
    ]);
    expect(t.venue.info({ type: "userRole", user: agent })).toEqual({ role: "agent", data: { user: ALICE } });
    expect(t.venue.info({ type: "userRole", user: ALICE })).toEqual({ role: "user" });
  });
});
