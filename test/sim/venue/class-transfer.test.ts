import { describe, expect, it } from "vitest";
import { ALICE, BOB, BTC, testVenue } from "./helpers.ts";

describe("usdClassTransfer moves USDC between the perp and the spot account", () => {
  it("refuses more than the source holds, and moves what it holds", () => {
    const t = testVenue({ balance: "10000" });
    expect(t.ex(ALICE, { type: "usdClassTransfer", amount: "1000000", toPerp: false })).toEqual({
      status: "err",
      response: "Insufficient balance for transfer.",
    });
    expect(t.ex(ALICE, { type: "usdClassTransfer", amount: "1", toPerp: true })).toEqual({
      status: "err",
      response: "Insufficient balance for transfer.",
    });
    expect(t.ex(ALICE, { type: "usdClassTransfer", amount: "2500", toPerp: false }).status).toBe("ok");
    expect(t.state(ALICE).withdrawable).toBe("7500");
    expect(t.venue.info({ type: "spotClearinghouseState", user: ALICE })).toMatchObject({
      balances: [{ coin: "USDC", total: "2500" }],
    });
    expect(t.ex(ALICE, { type: "usdClassTransfer", amount: "500", toPerp: true }).status).toBe("ok");
    expect(t.state(ALICE).withdrawable).toBe("8000");
  });

  it("only free collateral leaves the perp account (margin in use stays)", () => {
    const t = testVenue({ balance: "10000" });
    t.order(BOB, { a: BTC, b: false, p: "97000", s: "1" });
    t.order(ALICE, { a: BTC, b: true, p: "97000", s: "1" }); // $97k at 20x: 4,850 of margin
    expect(t.ex(ALICE, { type: "usdClassTransfer", amount: "6000", toPerp: false })).toEqual({
      status: "err",
      response: "Insufficient balance for transfer.",
    });
  });
});

describe("l2Book depth", () => {
  it("renders up to 20 levels a side, as the exchange sends", () => {
    const t = testVenue();
    for (let i = 0; i < 25; i++) {
      t.order(BOB, { a: BTC, b: true, p: String(96000 - i * 10), s: "0.01" });
      t.order(BOB, { a: BTC, b: false, p: String(98000 + i * 10), s: "0.01" });
    }
    const book = t.venue.info({ type: "l2Book", coin: "BTC" }) as { levels: unknown[][] };
    expect(book.levels.map((side) => side.length)).toEqual([20, 20]);
  });
});
