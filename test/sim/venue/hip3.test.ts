import { describe, expect, it } from "vitest";
import { ALICE, BOB, CAROL, dexAbstraction, T0, testVenue } from "./helpers.ts";

const SPCX = 110003;
const VXX = 120000;
const US3M = 120001;
const BTCSWP = 120002;

describe("HIP-3 dexes", () => {
  it("numbers assets 100000 + dexIndex·10000 + index with perpDexs [null, xyz, yex]", () => {
    const t = testVenue();
    const dexs = t.venue.info({ type: "perpDexs" }) as ({ name: string } | null)[];
    expect(dexs.map((d) => d?.name ?? null)).toEqual([null, "xyz", "yex"]);
    const ids = Object.fromEntries(t.venue.markets().map((m) => [m.coin, m.asset]));
    expect(ids).toMatchObject({
      BTC: 0,
      ETH: 1,
      "xyz:SPCX": SPCX,
      "yex:VXX": VXX,
      "yex:US3M": US3M,
      "yex:BTCSWP": BTCSWP,
    });
    expect(t.venue.markets().find((m) => m.coin === "yex:VXX")).toEqual({
      dex: "yex",
      coin: "yex:VXX",
      asset: VXX,
      szDecimals: 2,
      maxLeverage: 20,
      onlyIsolated: true,
    });
  });

  // The recorded xyz meta (2026-09, src/sim/recorded/hip3-markets.json) carries no `onlyIsolated` and
  // no `marginMode` for these markets, so they trade cross too (HIP-3 launched isolated only; a
  // deployer now sets each market's mode). yex is isolated only by its deployer's specification.
  it("xyz's recorded markets allow cross margin; yex's are isolated only", () => {
    const t = testVenue();
    const meta = t.venue.info({ type: "meta", dex: "xyz" }) as { universe: Record<string, unknown>[] };
    for (const u of meta.universe) {
      expect(u).not.toHaveProperty("onlyIsolated");
      expect(u).not.toHaveProperty("marginMode");
    }
    const TSLA = 110001;
    expect(t.ex(ALICE, { type: "updateLeverage", asset: TSLA, isCross: true, leverage: 10 }).status).toBe(
      "ok",
    );
    expect(t.ex(ALICE, { type: "updateLeverage", asset: VXX, isCross: true, leverage: 10 })).toEqual({
      status: "err",
      response: "Cross margin is not allowed for this asset.",
    });
  });

  // Nunchi's YEX specification (docs.nunchi.trade, "YEX Perps Specifications" and the per-market
  // pages): tiered max leverage 20× from $0, 5× from $500k, 2× from $5M; $10M open-interest cap each.
  it("yex publishes its deployer's tiered margin table and $10M open-interest caps", () => {
    const t = testVenue();
    const meta = t.venue.info({ type: "meta", dex: "yex" }) as {
      universe: { name: string; maxLeverage: number; marginTableId: number }[];
      marginTables: [number, { marginTiers: { lowerBound: string; maxLeverage: number }[] }][];
    };
    const ids = new Set(meta.universe.map((u) => u.marginTableId));
    expect(meta.universe.map((u) => u.maxLeverage)).toEqual([20, 20, 20]);
    expect(ids.size).toBe(1);
    const table = meta.marginTables.find(([id]) => ids.has(id))![1];
    expect(table.marginTiers).toEqual([
      { lowerBound: "0.0", maxLeverage: 20 },
      { lowerBound: "500000.0", maxLeverage: 5 },
      { lowerBound: "5000000.0", maxLeverage: 2 },
    ]);
    const yex = (
      t.venue.info({ type: "perpDexs" }) as ({ name: string; assetToStreamingOiCap: string[][] } | null)[]
    )[2]!;
    expect(yex.assetToStreamingOiCap).toEqual([
      ["yex:VXX", "10000000.0"],
      ["yex:US3M", "10000000.0"],
      ["yex:BTCSWP", "10000000.0"],
    ]);
  });

  it("holds a yex position to its margin tier: above 5× only under $500k, above 2× only under $5M", () => {
    const t = testVenue({ balance: "10000000" });
    dexAbstraction(t, ALICE, BOB, CAROL);
    const TIER = "Order would cause position to exceed margin tier limit at current leverage asset=120000";
    const leverage = (user: typeof ALICE, lev: number) =>
      expect(t.ex(user, { type: "updateLeverage", asset: VXX, isCross: false, leverage: lev }).status).toBe(
        "ok",
      );
    leverage(BOB, 2); // 2× has no upper bound: BOB may rest $9M of offers
    t.order(BOB, { a: VXX, b: false, p: "45", s: "200000" });
    leverage(ALICE, 10);
    // 12,000 × $45 = $540k: past the 20× tier's $500k at 10×
    expect(t.order(ALICE, { a: VXX, b: true, p: "45", s: "12000" })).toEqual({ error: TIER });
    expect(t.order(ALICE, { a: VXX, b: true, p: "45", s: "11000" })).toMatchObject({
      filled: { totalSz: "11000" },
    });
    leverage(CAROL, 5);
    expect(t.order(CAROL, { a: VXX, b: true, p: "45", s: "100000" })).toMatchObject({
      filled: { totalSz: "100000" },
    });
    // 112,000 lots × $45 = $5.04M: past the 5× tier's $5M
    expect(t.order(CAROL, { a: VXX, b: true, p: "45", s: "12000" })).toEqual({ error: TIER });
  });

  it("serves meta, metaAndAssetCtxs and allMids per dex, and a non-empty spotMeta", () => {
    const t = testVenue();
    const meta = t.venue.info({ type: "meta", dex: "yex" }) as { universe: Record<string, unknown>[] };
    expect(meta.universe.map((u) => u.name)).toEqual(["yex:VXX", "yex:US3M", "yex:BTCSWP"]);
    expect(meta.universe[0]).toMatchObject({ onlyIsolated: true, szDecimals: 2 });
    const [m2, ctxs] = t.venue.info({ type: "metaAndAssetCtxs", dex: "xyz" }) as [
      unknown,
      Record<string, unknown>[],
    ];
    expect((m2 as { universe: { name: string }[] }).universe.map((u) => u.name)).toEqual([
      "xyz:XYZ100",
      "xyz:TSLA",
      "xyz:NVDA",
      "xyz:SPCX",
    ]);
    expect(ctxs[3]).toMatchObject({
      oraclePx: "250",
      markPx: "250",
      midPx: null,
      openInterest: "0",
      impactPxs: null,
    });
    expect(t.venue.info({ type: "allMids", dex: "yex" })).toEqual({
      "yex:VXX": "45",
      "yex:US3M": "4.2",
      "yex:BTCSWP": "8.5",
    });
    expect(Object.keys(t.venue.info({ type: "allMids" }) as object)).toContain("BTC");
    const spot = t.venue.info({ type: "spotMeta" }) as { tokens: unknown[]; universe: unknown[] };
    expect(spot.tokens.length).toBeGreaterThan(0);
    expect(spot.universe.length).toBeGreaterThan(0);
  });

  it("trades isolated only, keeps state per dex, and refuses cross leverage", () => {
    const t = testVenue({ balance: "10000" });
    dexAbstraction(t, ALICE, BOB, CAROL);
    expect(t.ex(ALICE, { type: "updateLeverage", asset: VXX, isCross: true, leverage: 3 })).toEqual({
      status: "err",
      response: "Cross margin is not allowed for this asset.",
    });
    expect(t.ex(ALICE, { type: "updateLeverage", asset: VXX, isCross: false, leverage: 5 }).status).toBe(
      "ok",
    );
    t.order(BOB, { a: VXX, b: false, p: "45", s: "100" });
    expect(t.order(ALICE, { a: VXX, b: true, p: "45", s: "100" })).toMatchObject({
      filled: { totalSz: "100", avgPx: "45" },
    });
    const yex = t.state(ALICE, "yex");
    expect(yex.assetPositions[0]!.position).toMatchObject({
      coin: "yex:VXX",
      szi: "100",
      leverage: { type: "isolated", value: 5, rawUsd: "-3600" },
      marginUsed: "900",
      maxLeverage: 20,
    });
    // $4500 at 5x holds $900 of isolated margin; HIP-3 taker fee is 0.09% = $4.05.
    expect(yex.marginSummary.accountValue).toBe("900");
    expect(t.state(ALICE).marginSummary.accountValue).toBe("9095.95");
    expect(t.state(ALICE).assetPositions).toEqual([]);
    expect(t.state(ALICE, "xyz").assetPositions).toEqual([]);
    const open = t.venue.info({ type: "openOrders", user: BOB, dex: "yex" });
    expect(open).toEqual([]);
    // Switching an open isolated position to cross is refused.
    expect(t.ex(ALICE, { type: "updateLeverage", asset: VXX, isCross: true, leverage: 3 }).status).toBe(
      "err",
    );
  });

  it("keeps HIP-3 open orders out of the main dex's openOrders", () => {
    const t = testVenue();
    dexAbstraction(t, ALICE, BOB, CAROL);
    t.clock.now = T0 + 5;
    t.order(ALICE, { a: SPCX, b: true, p: "200", s: "1" });
    expect(t.venue.info({ type: "openOrders", user: ALICE })).toEqual([]);
    expect(t.venue.info({ type: "openOrders", user: ALICE, dex: "xyz" })).toHaveLength(1);
  });
});
