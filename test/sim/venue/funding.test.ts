import { describe, expect, it } from "vitest";
import { fundingRate } from "../../../src/sim/venue/clockwork.ts";
import { LIQUIDATOR } from "../../../src/sim/venue/index.ts";
import type { Market } from "../../../src/sim/venue/types.ts";
import { ALICE, BOB, BTC, CAROL, dexAbstraction, T0, testVenue } from "./helpers.ts";

const HOUR = 3_600_000;
const VXX = 120000;

/** A market of a dex with this hourly interest rate and funding multiplier (all fundingRate reads). */
function dexMarket(multiplier: string, interestPerHour = "0.0000125"): Market {
  return {
    dex: { fundingMultiplier: multiplier, fundingInterestRate: interestPerHour },
  } as unknown as Market;
}

describe("funding rate formula", () => {
  // Hyperliquid: F = P + clamp(0.01 % − P, −0.05 %, +0.05 %) is an 8-hour rate; each hour pays F / 8,
  // capped at 4 %/h.
  it("clamps on the 8-hour basis and pays an eighth of it each hour", () => {
    const main = dexMarket("1");
    expect(fundingRate(main, 0)).toBe("0.0000125");
    // Inside the clamp band the 8-hour rate is the interest rate: 0.0003 − 0.0002.
    expect(fundingRate(main, 0.0003)).toBe("0.0000125");
    expect(fundingRate(main, 0.00055)).toBe("0.0000125");
    // Beyond it the premium shows through, less the 0.05 % clamp, over 8 hours.
    expect(fundingRate(main, 0.001)).toBe("0.0000625");
    expect(fundingRate(main, -0.001)).toBe("-0.0000625");
    expect(fundingRate(main, 0.00927835)).toBe("0.00109729");
  });

  it("caps the hourly rate at 4 % and scales a HIP-3 dex's rate by its multiplier", () => {
    expect(fundingRate(dexMarket("1"), 0.5)).toBe("0.04");
    expect(fundingRate(dexMarket("1"), -0.5)).toBe("-0.04");
    expect(fundingRate(dexMarket("0.5"), 0.001)).toBe("0.00003125");
    expect(fundingRate(dexMarket("0.5"), 0)).toBe("0.00000625");
  });
});

describe("funding", () => {
  it("settles the main-dex hourly rate from the impact-price premium: (P + clamp(0.0001 − P, ±0.0005)) / 8", () => {
    const t = testVenue();
    t.order(BOB, { a: BTC, b: false, p: "97000", s: "0.1" });
    t.order(ALICE, { a: BTC, b: true, p: "97000", s: "0.1" });
    // Carol's quotes sit above the 97000 oracle: impact bid 97900, impact ask 98000.
    t.order(CAROL, { a: BTC, b: true, p: "97900", s: "1" });
    t.order(CAROL, { a: BTC, b: false, p: "98000", s: "1" });
    const [, ctxs] = t.venue.info({ type: "metaAndAssetCtxs" }) as [unknown, Record<string, unknown>[]];
    expect(ctxs[0]).toMatchObject({
      premium: "0.00927835",
      funding: "0.00109729",
      impactPxs: ["97900", "98000"],
      midPx: "97950",
      // Quotes just placed 950 above the oracle do not move the mark yet: its smoothed premium is a
      // 150 s EMA, and the external reference (the oracle, in the sim) holds the median down.
      markPx: "97000",
      oraclePx: "97000",
      openInterest: "0.1",
      dayNtlVlm: "9700",
      dayBaseVlm: "0.1",
    });
    t.clock.now = T0 + HOUR - 1;
    t.venue.advance(t.clock.now);
    expect(t.venue.info({ type: "fundingHistory", coin: "BTC", startTime: T0 })).toEqual([]);
    // An hour later the EMA has caught up: the mark is the book's median (bid, ask, last trade).
    const [, later] = t.venue.info({ type: "metaAndAssetCtxs" }) as [unknown, Record<string, unknown>[]];
    expect(later[0]).toMatchObject({ markPx: "97900", oraclePx: "97000" });
    t.clock.now = T0 + HOUR + 10;
    t.venue.advance(t.clock.now);
    expect(t.venue.info({ type: "fundingHistory", coin: "BTC", startTime: T0 })).toEqual([
      { coin: "BTC", fundingRate: "0.00109729", premium: "0.00927835", time: T0 + HOUR },
    ]);
    const alice = t.venue.info({ type: "userFunding", user: ALICE, startTime: T0 }) as {
      delta: Record<string, unknown>;
    }[];
    expect(alice.map((u) => u.delta)).toEqual([
      {
        type: "funding",
        coin: "BTC",
        usdc: "-10.643713",
        szi: "0.1",
        fundingRate: "0.00109729",
        nSamples: 720,
      },
    ]);
    const bob = t.venue.info({ type: "userFunding", user: BOB }) as { delta: Record<string, unknown> }[];
    expect(bob[0]!.delta).toMatchObject({ usdc: "10.643713", szi: "-0.1" });
    expect(t.state(ALICE).assetPositions[0]!.position.cumFunding).toEqual({
      allTime: "10.643713",
      sinceOpen: "10.643713",
      sinceChange: "10.643713",
    });
    const predicted = t.venue.info({ type: "predictedFundings" }) as [
      string,
      [string, Record<string, unknown>][],
    ][];
    expect(predicted[0]).toEqual([
      "BTC",
      [["HlPerp", { fundingRate: "0.00109729", nextFundingTime: T0 + 2 * HOUR, fundingIntervalHours: 1 }]],
    ]);
    expect(predicted.map((p) => p[0])).not.toContain("yex:VXX");
  });

  it("pays the baseline 0.0000125 when the book gives no premium", () => {
    const t = testVenue();
    t.order(BOB, { a: BTC, b: false, p: "97000", s: "1" });
    t.order(ALICE, { a: BTC, b: true, p: "97000", s: "1" });
    t.venue.advance(T0 + HOUR);
    const [h] = t.venue.info({ type: "fundingHistory", coin: "BTC", startTime: 0 }) as {
      fundingRate: string;
    }[];
    expect(h!.fundingRate).toBe("0.0000125");
    const [u] = t.venue.info({ type: "userFunding", user: ALICE }) as { delta: { usdc: string } }[];
    expect(u!.delta.usdc).toBe("-1.2125");
  });

  it("uses the HIP-3 premium ½(impactBid + impactAsk)/oracle − 1 and charges isolated margin", () => {
    const t = testVenue();
    dexAbstraction(t, ALICE, BOB, CAROL);
    t.ex(ALICE, { type: "updateLeverage", asset: VXX, isCross: false, leverage: 5 });
    t.order(BOB, { a: VXX, b: false, p: "45", s: "10" });
    t.order(ALICE, { a: VXX, b: true, p: "45", s: "10" });
    t.order(CAROL, { a: VXX, b: true, p: "45.1", s: "200" });
    t.order(CAROL, { a: VXX, b: false, p: "45.3", s: "200" });
    t.venue.advance(T0 + HOUR);
    const [h] = t.venue.info({ type: "fundingHistory", coin: "yex:VXX", startTime: 0 }) as Record<
      string,
      unknown
    >[];
    expect(h).toEqual({ coin: "yex:VXX", fundingRate: "0.00049306", premium: "0.00444444", time: T0 + HOUR });
    const pos = t.state(ALICE, "yex").assetPositions[0]!.position;
    // 10 × 45 × 0.00049306 = 0.221877 paid out of the isolated margin (90 at 5x); mark 45.1 adds 1 of uPnL.
    expect(pos.marginUsed).toBe("90.778123");
  });

  it("settles each missed hour when time jumps", () => {
    const t = testVenue();
    t.venue.advance(T0 + 3 * HOUR + 1);
    expect(t.venue.info({ type: "fundingHistory", coin: "ETH", startTime: 0 })).toHaveLength(3);
    expect(
      (t.venue.info({ type: "fundingHistory", coin: "ETH", startTime: T0 + 2 * HOUR }) as unknown[]).length,
    ).toBe(2);
  });
});

describe("liquidation", () => {
  it("takes over a cross account at the mark once equity is below 2/3 of maintenance (no book to sell into)", () => {
    const t = testVenue({ balance: "1000" });
    t.order(BOB, { a: BTC, b: false, p: "97000", s: "0.2" });
    t.order(ALICE, { a: BTC, b: true, p: "97000", s: "0.2" });
    const pos = t.state(ALICE).assetPositions[0]!.position;
    expect(pos.liquidationPx).toBe("93208.759");
    t.venue.setOraclePrice("BTC", "93300");
    t.venue.advance(T0 + 1000);
    expect(t.state(ALICE).assetPositions).toHaveLength(1);
    // Below maintenance (231.27 < 233) but above 2/3 of it: the market liquidation finds no bids.
    t.venue.setOraclePrice("BTC", "93200");
    t.venue.advance(T0 + 2000);
    expect(t.state(ALICE).assetPositions).toHaveLength(1);
    // 151.27 < 2/3 × 232: the backstop takes over at the mark.
    t.venue.setOraclePrice("BTC", "92800");
    t.venue.advance(T0 + 3000);
    const s = t.state(ALICE);
    expect(s.assetPositions).toEqual([]);
    // 1000 − 8.73 taker fee − 0.2 × 4200 loss
    expect(s.marginSummary.accountValue).toBe("151.27");
    const [fill] = t.venue.info({ type: "userFills", user: ALICE }) as Record<string, unknown>[];
    expect(fill).toMatchObject({
      coin: "BTC",
      px: "92800",
      sz: "0.2",
      side: "A",
      dir: "Close Long",
      closedPnl: "-840",
      liquidation: { liquidatedUser: ALICE, markPx: "92800", method: "backstop" },
    });
    const ledger = t.venue.info({ type: "userNonFundingLedgerUpdates", user: ALICE }) as {
      delta: Record<string, unknown>;
    }[];
    expect(ledger.filter((u) => u.delta.type === "liquidation")).toHaveLength(1);
    expect(ledger.at(-1)!.delta).toEqual({
      type: "liquidation",
      liquidatedNtlPos: "18560",
      accountValue: "151.27",
      leverageType: "Cross",
      liquidatedPositions: [{ coin: "BTC", szi: "0.2" }],
    });
    expect(t.state(LIQUIDATOR).assetPositions[0]!.position.szi).toBe("0.2");
  });

  it("the mark follows a book pushed off the index only as its 150 s premium EMA does", () => {
    const t = testVenue({ balance: "100000" });
    t.order(BOB, { a: BTC, b: false, p: "97000", s: "0.1" });
    t.order(ALICE, { a: BTC, b: true, p: "97000", s: "0.1" });
    // Someone lifts the book 3 % over the 97000 index.
    t.order(CAROL, { a: BTC, b: true, p: "99900", s: "1" });
    t.order(CAROL, { a: BTC, b: false, p: "100000", s: "1" });
    const mark = () =>
      Number((t.venue.info({ type: "metaAndAssetCtxs" }) as [unknown, { markPx: string }[]])[1][0]!.markPx);
    expect(mark()).toBe(97000);
    t.clock.now = T0 + 150_000; // one time constant: 1 − 1/e of the 2950 premium
    t.venue.advance(t.clock.now);
    expect(mark()).toBeCloseTo(97000 + 2950 * (1 - Math.exp(-1)), 0);
    t.clock.now = T0 + 3_600_000;
    t.venue.advance(t.clock.now);
    expect(mark()).toBe(99900); // caught up: the median of bid, ask and last trade
  });

  it("liquidates into the book first (method market), leaving the backstop flat", () => {
    const t = testVenue({ balance: "1000" });
    t.order(BOB, { a: BTC, b: false, p: "97000", s: "0.2" });
    t.order(ALICE, { a: BTC, b: true, p: "97000", s: "0.2" });
    t.venue.deposit(CAROL, "100000");
    t.order(CAROL, { a: BTC, b: true, p: "93150", s: "1" });
    t.order(CAROL, { a: BTC, b: false, p: "93300", s: "1" });
    t.venue.setOraclePrice("BTC", "93200");
    t.venue.advance(T0 + 1000);
    expect(t.state(ALICE).assetPositions).toEqual([]);
    const [fill] = t.venue.info({ type: "userFills", user: ALICE }) as Record<string, unknown>[];
    expect(fill).toMatchObject({
      px: "93150",
      closedPnl: "-770",
      fee: "8.3835",
      // oracle 93200 + 1 s of the 150 s EMA of a +25 premium (0.17), on the 0.1 tick
      liquidation: { liquidatedUser: ALICE, markPx: "93200.2", method: "market" },
    });
    const [carol] = t.venue.info({ type: "userFills", user: CAROL }) as Record<string, unknown>[];
    expect(carol).toMatchObject({ px: "93150", side: "B", liquidation: { method: "market" } });
    // 1000 − 8.73 − 770 − 8.3835
    expect(t.state(ALICE).marginSummary.accountValue).toBe("212.8865");
    expect(t.state(LIQUIDATOR).assetPositions).toEqual([]);
  });

  it("liquidates an isolated position alone, returning its remaining margin", () => {
    const t = testVenue({ balance: "10000" });
    dexAbstraction(t, ALICE, BOB, CAROL);
    t.ex(ALICE, { type: "updateLeverage", asset: VXX, isCross: false, leverage: 5 });
    t.order(BOB, { a: VXX, b: false, p: "45", s: "100" });
    t.order(ALICE, { a: VXX, b: true, p: "45", s: "100" });
    // Maintenance is half the initial margin at the table's 20×: 900 + 100·(px − 45) = 100·px / 40.
    expect(t.state(ALICE, "yex").assetPositions[0]!.position.liquidationPx).toBe("36.923077");
    t.venue.setOraclePrice("yex:VXX", "37");
    t.venue.advance(T0 + 500);
    expect(t.state(ALICE, "yex").assetPositions).toHaveLength(1);
    t.venue.setOraclePrice("yex:VXX", "36.5");
    t.venue.advance(T0 + 1000);
    expect(t.state(ALICE, "yex").assetPositions).toEqual([]);
    // 10000 − 4.05 fee − 850 loss (margin 900 returns 50)
    expect(t.state(ALICE).marginSummary.accountValue).toBe("9145.95");
    const ledger = t.venue.info({ type: "userNonFundingLedgerUpdates", user: ALICE }) as {
      delta: Record<string, unknown>;
    }[];
    expect(ledger.at(-1)!.delta).toMatchObject({ type: "liquidation", leverageType: "Isolated" });
  });

  it("caps an isolated loss at the position's margin", () => {
    const t = testVenue({ balance: "10000" });
    dexAbstraction(t, ALICE, BOB, CAROL);
    t.ex(ALICE, { type: "updateLeverage", asset: VXX, isCross: false, leverage: 5 });
    t.order(BOB, { a: VXX, b: false, p: "45", s: "100" });
    t.order(ALICE, { a: VXX, b: true, p: "45", s: "100" });
    t.venue.setOraclePrice("yex:VXX", "30");
    t.venue.advance(T0 + 1000);
    // The whole 900 margin is lost, not more.
    expect(t.state(ALICE).marginSummary.accountValue).toBe("9095.95");
  });
});
