import { describe, expect, it } from "vitest";
import { ALICE, BOB, BTC, CAROL, ETH, T0, testVenue } from "./helpers.ts";

const MINUTE = 60_000;

interface FillWire {
  coin: string;
  px: string;
  sz: string;
  side: string;
  dir: string;
  closedPnl: string;
  fee: string;
  startPosition: string;
  crossed: boolean;
  oid: number;
  liquidation?: unknown;
}

/** Advance the venue's clock to `t`, a minute at a time (the venue samples its oracle as time passes). */
function runTo(t: ReturnType<typeof testVenue>, ms: number): void {
  while (t.clock.now < ms) {
    t.clock.now = Math.min(ms, t.clock.now + MINUTE);
    t.venue.advance(t.clock.now);
  }
}

describe("a market delisted while it trades (Hyperliquid docs, Trading > Delisting)", () => {
  it("settles every position at the hour's oracle TWAP with a Settlement fill and cancels every order", () => {
    const t = testVenue();
    // ALICE long 1 ETH (cross) and BOB short 1 ETH (isolated) from one trade at 3400.
    expect(t.ex(BOB, { type: "updateLeverage", asset: ETH, isCross: false, leverage: 10 }).status).toBe("ok");
    expect(t.order(BOB, { a: ETH, b: false, p: "3400", s: "1" })).toMatchObject({ resting: {} });
    expect(
      t.order(ALICE, { a: ETH, b: true, p: "3400", s: "1", t: { limit: { tif: "Ioc" } } }),
    ).toMatchObject({
      filled: { totalSz: "1" },
    });
    // CAROL rests a bid and a stop on ETH, and a bid on BTC (which stays).
    expect(t.order(CAROL, { a: ETH, b: true, p: "3000", s: "0.1" })).toMatchObject({ resting: {} });
    expect(
      t.order(CAROL, {
        a: ETH,
        b: true,
        p: "4000",
        s: "0.1",
        t: { trigger: { isMarket: true, triggerPx: "3900", tpsl: "sl" } },
      }),
    ).toMatchObject({ resting: {} });
    expect(t.order(CAROL, { a: BTC, b: true, p: "90000", s: "0.001" })).toMatchObject({ resting: {} });
    const ledgerBefore = (t.venue.info({ type: "userNonFundingLedgerUpdates", user: ALICE }) as unknown[])
      .length;

    // The oracle spends half an hour at 3400, half an hour at 3500, then jumps to 3600 just before the vote:
    // the settlement is the hour's time-weighted average (3450), not the last print.
    runTo(t, T0 + 30 * MINUTE);
    t.venue.setOraclePrice("ETH", "3500");
    runTo(t, T0 + 60 * MINUTE);
    t.venue.setOraclePrice("ETH", "3600");
    // Marked at 3600 (no book), ALICE's long shows +200 before the vote.
    const valueBefore = Number(t.state(ALICE).marginSummary.accountValue);
    expect(t.venue.delist("ETH")).toEqual({
      coin: "ETH",
      settlementPx: "3450",
      positionsSettled: 2,
      ordersCancelled: 2,
    });

    const lastFill = (user: string) => (t.venue.info({ type: "userFills", user }) as FillWire[])[0]!;
    const alice = lastFill(ALICE);
    expect(alice).toMatchObject({
      coin: "ETH",
      dir: "Settlement",
      side: "A",
      sz: "1",
      startPosition: "1",
      px: "3450",
      closedPnl: "50",
      fee: "0",
      crossed: true,
    });
    expect(alice.liquidation).toBeUndefined();
    const bob = lastFill(BOB);
    expect(bob).toMatchObject({ dir: "Settlement", side: "B", sz: "1", startPosition: "-1", px: "3450" });
    expect(bob.closedPnl).toBe("-50");
    // No position is left, and the isolated margin came back.
    expect(t.state(ALICE).assetPositions).toEqual([]);
    expect(t.state(BOB).assetPositions).toEqual([]);
    expect(Number(t.state(BOB).marginSummary.totalMarginUsed)).toBe(0);
    // ALICE's account moved by the settlement's PnL only (no fee), and no ledger entry was written.
    expect(Number(t.state(ALICE).marginSummary.accountValue)).toBeCloseTo(valueBefore - 200 + 50, 6);
    expect((t.venue.info({ type: "userNonFundingLedgerUpdates", user: ALICE }) as unknown[]).length).toBe(
      ledgerBefore,
    );

    // Every ETH order is cancelled with the exchange's status; the BTC bid stays.
    const open = t.venue.info({ type: "openOrders", user: CAROL }) as { coin: string }[];
    expect(open.map((o) => o.coin)).toEqual(["BTC"]);
    const history = t.venue.info({ type: "historicalOrders", user: CAROL }) as {
      order: { coin: string };
      status: string;
    }[];
    expect(history.filter((h) => h.order.coin === "ETH").map((h) => h.status)).toEqual([
      "delistedCanceled",
      "delistedCanceled",
    ]);

    // meta flags it, nothing trades it, its open interest is gone and its mark is the settlement price.
    const [meta, ctxs] = t.venue.info({ type: "metaAndAssetCtxs" }) as [
      { universe: { name: string; isDelisted?: boolean }[] },
      { markPx: string; openInterest: string }[],
    ];
    expect(meta.universe[ETH]).toMatchObject({ name: "ETH", isDelisted: true });
    expect(ctxs[ETH]).toMatchObject({ markPx: "3450", openInterest: "0" });
    expect(t.order(ALICE, { a: ETH, b: true, p: "3400", s: "0.1", r: true })).toEqual({
      error: "Trading is halted.",
    });
  });

  it("settles at the oracle when the venue has not seen an hour of it, and refuses a second delisting", () => {
    const t = testVenue();
    expect(t.order(BOB, { a: ETH, b: false, p: "3400", s: "0.5" })).toMatchObject({ resting: {} });
    expect(
      t.order(ALICE, { a: ETH, b: true, p: "3400", s: "0.5", t: { limit: { tif: "Ioc" } } }),
    ).toMatchObject({
      filled: {},
    });
    t.venue.setOraclePrice("ETH", "3300");
    t.venue.delist("ETH");
    const fills = t.venue.info({ type: "userFills", user: ALICE }) as FillWire[];
    expect(fills[0]).toMatchObject({ dir: "Settlement", px: "3300", closedPnl: "-50" });
    expect(() => t.venue.delist("ETH")).toThrow("ETH is already delisted");
    expect(() => t.venue.delist("NOPE")).toThrow("Unknown coin: NOPE");
  });
});
