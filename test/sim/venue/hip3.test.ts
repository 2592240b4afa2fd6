import { describe, expect, it } from "vitest";
import { ALICE, BOB, T0, testVenue } from "./helpers.ts";

const SPCX = 110000;
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
      maxLeverage: 5,
      onlyIsolated: true,
    });
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
    expect((m2 as { universe: unknown[] }).universe).toHaveLength(1);
    expect(ctxs[0]).toMatchObject({
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
      maxLeverage: 5,
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
    t.clock.now = T0 + 5;
    t.order(ALICE, { a: SPCX, b: true, p: "200", s: "1" });
    expect(t.venue.info({ type: "openOrders", user: ALICE })).toEqual([]);
    expect(t.venue.info({ type: "openOrders", user: ALICE, dex: "xyz" })).toHaveLength(1);
  });
});
