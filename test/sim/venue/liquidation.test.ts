import { describe, expect, it } from "vitest";
import { ALICE, BOB, BTC, CAROL, T0, testVenue } from "./helpers.ts";

/** ALICE: $6,000 and a 2.1 BTC long at 97,000 (about $204k at 40x); CAROL bids 95,290 below it. */
function bigLong() {
  const t = testVenue({ balance: "6000" });
  t.venue.deposit(BOB, "100000");
  t.venue.deposit(CAROL, "1000000");
  t.ex(ALICE, { type: "updateLeverage", asset: BTC, isCross: true, leverage: 40 });
  t.order(BOB, { a: BTC, b: false, p: "97000", s: "2.1" });
  t.order(ALICE, { a: BTC, b: true, p: "97000", s: "2.1" });
  t.order(CAROL, { a: BTC, b: true, p: "95290", s: "5" });
  expect(t.state(ALICE).assetPositions[0]!.position.szi).toBe("2.1");
  return t;
}

const liquidationFills = (t: ReturnType<typeof testVenue>) =>
  (t.venue.info({ type: "userFills", user: ALICE }) as Record<string, unknown>[]).filter(
    (f) => f.liquidation !== undefined,
  );

describe("partial liquidation", () => {
  it("a $200k position below maintenance sends 20 % to the book, and keeps the rest once healthy", () => {
    const t = bigLong();
    // Equity 2,338 < maintenance 2,502 (2.1 × 95,300 / 80), above 2/3 of it: a market liquidation.
    t.venue.setOraclePrice("BTC", "95300");
    t.clock.now = T0 + 1_000;
    t.venue.advance(t.clock.now);
    expect(t.state(ALICE).assetPositions[0]!.position.szi).toBe("1.68");
    expect(liquidationFills(t)).toMatchObject([
      { sz: "0.42", px: "95290", side: "A", liquidation: { method: "market", markPx: "95300" } },
    ]);
    t.clock.now = T0 + 60_000;
    t.venue.advance(t.clock.now);
    expect(t.state(ALICE).assetPositions[0]!.position.szi).toBe("1.68");
  });

  it("within the 30 s cooldown a further liquidation sends the entire position, filled no better than the mark", () => {
    const t = bigLong();
    t.venue.setOraclePrice("BTC", "95300");
    t.clock.now = T0 + 1_000;
    t.venue.advance(t.clock.now);
    t.venue.setOraclePrice("BTC", "94200");
    t.clock.now = T0 + 20_000;
    t.venue.advance(t.clock.now);
    expect(t.state(ALICE).assetPositions).toEqual([]);
    // CAROL's bid at 95,290 lies above the 94,200 mark: the liquidation sells at the mark.
    expect(liquidationFills(t).map((f) => [f.sz, f.px])).toEqual([
      ["1.68", "94200"],
      ["0.42", "95290"],
    ]);
  });

  it("after the cooldown the next liquidation is partial again", () => {
    const t = bigLong();
    t.venue.setOraclePrice("BTC", "95300");
    t.clock.now = T0 + 1_000;
    t.venue.advance(t.clock.now);
    t.venue.setOraclePrice("BTC", "94900");
    t.clock.now = T0 + 31_001;
    t.venue.advance(t.clock.now);
    // 1.68 × 94,900 ≈ $159k > $100k: 20 % of 1.68.
    expect(t.state(ALICE).assetPositions[0]!.position.szi).toBe("1.344");
  });
});
