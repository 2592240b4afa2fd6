import { describe, expect, it } from "vitest";
import { ALICE, BOB, BTC, CAROL, SOL, testVenue } from "./helpers.ts";

type Front = Record<string, unknown> & { oid: number; children: Front[] };

const stopSell = (triggerPx: string, s = "10", p = "150") => ({
  a: SOL,
  b: false,
  p,
  s,
  r: true,
  t: { trigger: { isMarket: true, triggerPx, tpsl: "sl" as const } },
});

/** ALICE long 10 SOL at 180, with a two-sided book around 180 from BOB. */
function longSol() {
  const t = testVenue();
  t.order(BOB, { a: SOL, b: false, p: "180", s: "10" });
  t.order(ALICE, { a: SOL, b: true, p: "180", s: "10" });
  t.order(BOB, { a: SOL, b: true, p: "181.52", s: "20" });
  t.order(BOB, { a: SOL, b: false, p: "182", s: "20" });
  return t;
}

function statuses(r: { status: string; response: unknown }): unknown[] {
  return (r.response as { data: { statuses: unknown[] } }).data.statuses;
}

describe("stop-market orders as the exchange runs them", () => {
  it("after a price gap, a stop fills no better than the mark that fired it, not against stale quotes", () => {
    const t = longSol();
    expect(t.order(ALICE, stopSell("175"))).toEqual({ resting: { oid: 5 } });
    // The oracle gaps to 172.76 while the bids still sit at 181.52 (the house has not requoted).
    t.venue.setOraclePrice("SOL", "172.76");
    expect(t.state(ALICE).assetPositions).toEqual([]);
    const [fill] = t.venue.info({ type: "userFills", user: ALICE }) as Record<string, unknown>[];
    expect(fill).toMatchObject({ oid: 5, px: "172.76", sz: "10", dir: "Close Long" });
  });

  it("triggers on the mark price, not on the book's mid or last trade", () => {
    const t = longSol();
    t.order(ALICE, stopSell("175"));
    // Trades far below the trigger print, but the oracle (and so the mark) stays at 180.
    t.order(CAROL, { a: SOL, b: true, p: "170", s: "1" });
    t.order(BOB, { a: SOL, b: false, p: "170", s: "1" });
    expect(t.venue.info({ type: "orderStatus", user: ALICE, oid: 5 })).toMatchObject({
      order: { status: "open" },
    });
    expect(t.state(ALICE).assetPositions).toHaveLength(1);
  });

  it("refuses a TP/SL whose trigger the mark has already crossed", () => {
    const t = longSol();
    expect(t.order(ALICE, stopSell("185"))).toEqual({ error: "Invalid TP/SL price. asset=5" });
    const tp = {
      ...stopSell("175"),
      t: { trigger: { isMarket: true, triggerPx: "175", tpsl: "tp" as const } },
    };
    expect(t.order(ALICE, tp)).toEqual({ error: "Invalid TP/SL price. asset=5" });
  });

  it("shows a waiting stop in openOrders, frontendOpenOrders and orderStatus as the exchange does", () => {
    const t = longSol();
    const cloid = "0x000000000000000000000000000000aa";
    t.order(ALICE, { ...stopSell("175"), c: cloid });
    expect(t.venue.info({ type: "openOrders", user: ALICE })).toEqual([
      {
        coin: "SOL",
        side: "A",
        limitPx: "150",
        sz: "10",
        oid: 5,
        timestamp: t.clock.now,
        origSz: "10",
        cloid,
        reduceOnly: true,
      },
    ]);
    const [front] = t.venue.info({ type: "frontendOpenOrders", user: ALICE }) as Front[];
    expect(front).toMatchObject({
      isTrigger: true,
      triggerPx: "175",
      triggerCondition: "Price below 175",
      orderType: "Stop Market",
      reduceOnly: true,
      isPositionTpsl: false,
      tif: null,
      cloid,
    });
    expect(t.venue.info({ type: "orderStatus", user: ALICE, oid: cloid })).toMatchObject({
      status: "order",
      order: { status: "open", order: { oid: 5, isTrigger: true } },
    });
  });

  it("a trigger waits while the side it would sell into is empty (the house between cancel and requote)", () => {
    const t = testVenue();
    t.order(BOB, { a: SOL, b: false, p: "180", s: "10" });
    t.order(ALICE, { a: SOL, b: true, p: "180", s: "10" });
    t.order(ALICE, stopSell("175"));
    t.venue.setOraclePrice("SOL", "172");
    expect(t.venue.info({ type: "orderStatus", user: ALICE, oid: 3 })).toMatchObject({
      order: { status: "open" },
    });
    t.order(CAROL, { a: SOL, b: true, p: "171.9", s: "10" });
    expect(t.state(ALICE).assetPositions).toEqual([]);
    expect(t.venue.info({ type: "orderStatus", user: ALICE, oid: 3 })).toMatchObject({
      order: { status: "filled" },
    });
  });
});

describe("TP/SL groupings", () => {
  it("positionTpsl: answers waitingForTrigger, shows isPositionTpsl, closes the whole position, and is cancelled when the position closes", () => {
    const t = longSol();
    const r = t.ex(ALICE, {
      type: "order",
      orders: [
        stopSell("175", "0"),
        { ...stopSell("190", "0", "185"), t: { trigger: { isMarket: true, triggerPx: "190", tpsl: "tp" } } },
      ],
      grouping: "positionTpsl",
    });
    expect(statuses(r)).toEqual(["waitingForTrigger", "waitingForTrigger"]);
    const front = t.venue.info({ type: "frontendOpenOrders", user: ALICE }) as Front[];
    expect(front.map((o) => [o.orderType, o.isPositionTpsl])).toEqual([
      ["Take Profit Market", true],
      ["Stop Market", true],
    ]);
    // The position closes by hand: both are cancelled at once.
    t.order(ALICE, { a: SOL, b: false, p: "181.52", s: "10", r: true, t: { limit: { tif: "Ioc" } } });
    expect(t.venue.info({ type: "openOrders", user: ALICE })).toEqual([]);
    expect(t.venue.info({ type: "orderStatus", user: ALICE, oid: 5 })).toMatchObject({
      order: { status: "canceled" },
    });
  });

  it("positionTpsl of size 0 follows the position: it closes whatever is open when it fires", () => {
    const t = longSol();
    t.ex(ALICE, { type: "order", orders: [stopSell("175", "0")], grouping: "positionTpsl" });
    t.order(ALICE, { a: SOL, b: true, p: "182", s: "5", t: { limit: { tif: "Ioc" } } });
    expect(t.state(ALICE).assetPositions[0]!.position.szi).toBe("15");
    t.venue.setOraclePrice("SOL", "174");
    expect(t.state(ALICE).assetPositions).toEqual([]);
  });

  it("normalTpsl: children wait for the entry, arm for what it filled, and a filled one cancels its sibling", () => {
    const t = testVenue();
    t.order(BOB, { a: SOL, b: true, p: "179", s: "50" });
    const r = t.ex(ALICE, {
      type: "order",
      orders: [
        { a: SOL, b: true, p: "180", s: "10", r: false, t: { limit: { tif: "Gtc" } } },
        { ...stopSell("170", "10") },
        { ...stopSell("190", "10", "185"), t: { trigger: { isMarket: true, triggerPx: "190", tpsl: "tp" } } },
      ],
      grouping: "normalTpsl",
    });
    expect(statuses(r)).toEqual([{ resting: { oid: 2 } }, "waitingForFill", "waitingForFill"]);
    // Waiting children are not open orders yet; the frontend lists them under their parent.
    expect((t.venue.info({ type: "openOrders", user: ALICE }) as unknown[]).length).toBe(1);
    const [parent] = t.venue.info({ type: "frontendOpenOrders", user: ALICE }) as Front[];
    expect(parent!.children.map((c) => c.orderType)).toEqual(["Stop Market", "Take Profit Market"]);
    // The entry fills 6 of 10, then is cancelled: the children arm for 6.
    t.order(CAROL, { a: SOL, b: false, p: "180", s: "6", t: { limit: { tif: "Ioc" } } });
    t.ex(ALICE, { type: "cancel", cancels: [{ a: SOL, o: 2 }] });
    const open = t.venue.info({ type: "openOrders", user: ALICE }) as { oid: number; sz: string }[];
    expect(open.map((o) => [o.oid, o.sz])).toEqual([
      [4, "6"],
      [3, "6"],
    ]);
    t.venue.setOraclePrice("SOL", "169");
    expect(t.state(ALICE).assetPositions).toEqual([]);
    expect(t.venue.info({ type: "orderStatus", user: ALICE, oid: 3 })).toMatchObject({
      order: { status: "filled" },
    });
    expect(t.venue.info({ type: "orderStatus", user: ALICE, oid: 4 })).toMatchObject({
      order: { status: "siblingFilledCanceled" },
    });
  });

  it("normalTpsl with an entry that fills at once arms its children straight away", () => {
    const t = testVenue();
    t.order(BOB, { a: SOL, b: false, p: "180", s: "10" });
    t.order(BOB, { a: SOL, b: true, p: "179", s: "10" });
    const r = t.ex(ALICE, {
      type: "order",
      orders: [
        { a: SOL, b: true, p: "181", s: "10", r: false, t: { limit: { tif: "Ioc" } } },
        stopSell("170", "10"),
      ],
      grouping: "normalTpsl",
    });
    expect(statuses(r)).toEqual([{ filled: { totalSz: "10", avgPx: "180", oid: 3 } }, "waitingForTrigger"]);
    expect(t.venue.info({ type: "openOrders", user: ALICE })).toMatchObject([{ oid: 4, sz: "10" }]);
  });
});

describe("modify of a resting trigger", () => {
  it("moves the trigger price under the same cloid, keeping its positionTpsl grouping", () => {
    const t = longSol();
    const cloid = "0x000000000000000000000000000000bb";
    t.ex(ALICE, { type: "order", orders: [{ ...stopSell("175", "0"), c: cloid }], grouping: "positionTpsl" });
    const r = t.ex(ALICE, {
      type: "batchModify",
      modifies: [{ oid: cloid, order: { ...stopSell("178", "0"), c: cloid } }],
    });
    expect(statuses(r)).toEqual([{ resting: { oid: 6, cloid } }]);
    const [front] = t.venue.info({ type: "frontendOpenOrders", user: ALICE }) as Front[];
    expect(front).toMatchObject({ oid: 6, triggerPx: "178", isPositionTpsl: true, cloid });
    t.venue.setOraclePrice("SOL", "177.5");
    expect(t.state(ALICE).assetPositions).toEqual([]);
  });

  it("a refused modify leaves the original trigger in place", () => {
    const t = longSol();
    t.order(ALICE, stopSell("175"));
    const r = t.ex(ALICE, { type: "modify", oid: 5, order: stopSell("185") });
    expect(r).toEqual({ status: "err", response: "Invalid TP/SL price. asset=5" });
    expect(t.venue.info({ type: "frontendOpenOrders", user: ALICE })).toMatchObject([
      { oid: 5, triggerPx: "175" },
    ]);
    t.venue.setOraclePrice("SOL", "174");
    expect(t.state(ALICE).assetPositions).toEqual([]);
  });
});

describe("reduce-only triggers without a position", () => {
  it("a plain reduce-only stop whose position is gone does nothing when it fires", () => {
    const t = testVenue();
    t.order(BOB, { a: BTC, b: true, p: "90000", s: "1" });
    t.order(ALICE, {
      a: BTC,
      b: false,
      p: "80000",
      s: "0.1",
      r: true,
      t: { trigger: { isMarket: true, triggerPx: "95000", tpsl: "sl" } },
    });
    t.venue.setOraclePrice("BTC", "94000");
    expect(t.venue.info({ type: "orderStatus", user: ALICE, oid: 2 })).toMatchObject({
      order: { status: "reduceOnlyCanceled" },
    });
    expect(t.state(ALICE).assetPositions).toEqual([]);
  });
});

describe("a fired limit TP/SL after a gap", () => {
  it("fills at the mark against stale quotes, never past its own limit", () => {
    const t = longSol();
    // Take profit: sell when the mark rises to 185, no lower than 186.
    const tp = {
      ...stopSell("185", "10", "186"),
      t: { trigger: { isMarket: false, triggerPx: "185", tpsl: "tp" as const } },
    };
    t.order(ALICE, tp);
    // A bid far above the coming mark (it cancels BOB's own 182 ask: self-trade prevention).
    t.order(BOB, { a: SOL, b: true, p: "190", s: "10" });
    t.venue.setOraclePrice("SOL", "185.5");
    const [fill] = t.venue.info({ type: "userFills", user: ALICE }) as Record<string, unknown>[];
    expect(fill).toMatchObject({ px: "186", sz: "10", dir: "Close Long" });
  });
});

describe("TP/SL across a saved and restored world", () => {
  it("keeps groupings, waiting children and siblings", () => {
    const t = longSol();
    t.ex(ALICE, { type: "order", orders: [stopSell("175", "0")], grouping: "positionTpsl" });
    t.ex(ALICE, {
      type: "order",
      orders: [
        { a: SOL, b: true, p: "179", s: "5", r: false, t: { limit: { tif: "Gtc" } } },
        stopSell("170", "5"),
      ],
      grouping: "normalTpsl",
    });
    const u = testVenue();
    u.venue.restore(JSON.parse(JSON.stringify(t.venue.snapshot([]))));
    const front = () => u.venue.info({ type: "frontendOpenOrders", user: ALICE }) as Front[];
    expect(front()).toEqual(t.venue.info({ type: "frontendOpenOrders", user: ALICE }));
    // The entry fills (after BOB's higher bid): its child arms for 5.
    u.order(CAROL, { a: SOL, b: false, p: "179", s: "25", t: { limit: { tif: "Ioc" } } });
    expect(u.venue.info({ type: "openOrders", user: ALICE })).toMatchObject([
      { oid: 7, sz: "5" },
      { oid: 5 },
    ]);
    // The whole position closes by hand: the positionTpsl goes with it.
    u.order(BOB, { a: SOL, b: true, p: "178", s: "20" });
    u.order(ALICE, { a: SOL, b: false, p: "178", s: "15", r: true, t: { limit: { tif: "Ioc" } } });
    expect(u.state(ALICE).assetPositions).toEqual([]);
    expect(u.venue.info({ type: "orderStatus", user: ALICE, oid: 5 })).toMatchObject({
      order: { status: "canceled" },
    });
  });
});

describe("modify of a normalTpsl child still waiting for its entry", () => {
  it("keeps it waiting, and a refused modify leaves it waiting", () => {
    const t = testVenue();
    t.order(BOB, { a: SOL, b: true, p: "179", s: "50" });
    t.ex(ALICE, {
      type: "order",
      orders: [
        { a: SOL, b: true, p: "180", s: "10", r: false, t: { limit: { tif: "Gtc" } } },
        stopSell("170", "10"),
      ],
      grouping: "normalTpsl",
    });
    expect(
      statuses(t.ex(ALICE, { type: "batchModify", modifies: [{ oid: 3, order: stopSell("171", "10") }] })),
    ).toEqual([{ resting: { oid: 4 } }]);
    expect(t.ex(ALICE, { type: "modify", oid: 4, order: stopSell("185", "10") })).toEqual({
      status: "err",
      response: "Invalid TP/SL price. asset=5",
    });
    expect((t.venue.info({ type: "openOrders", user: ALICE }) as unknown[]).length).toBe(1);
    const [parent] = t.venue.info({ type: "frontendOpenOrders", user: ALICE }) as Front[];
    expect(parent!.children.map((c) => [c.oid, c.triggerPx])).toEqual([[4, "171"]]);
    t.order(CAROL, { a: SOL, b: false, p: "180", s: "10", t: { limit: { tif: "Ioc" } } });
    expect(t.venue.info({ type: "openOrders", user: ALICE })).toMatchObject([{ oid: 4, sz: "10" }]);
  });
});
