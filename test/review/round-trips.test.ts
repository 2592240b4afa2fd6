import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { D } from "../../src/core/decimal.ts";
import { pairRoundTrips } from "../../src/review/round-trips.ts";
import { pair, records, trip } from "./helpers.ts";

describe("pairRoundTrips", () => {
  it("long 100 → 110 with fees 0.5 + 0.5: gross 10, fees 1, net 9", () => {
    const { roundTrips } = pair(trip({ entry: 100, exit: 110, fee: 0.5 }));
    const t = roundTrips[0]!;
    expect(t.direction).toBe("long");
    expect([t.gross.toString(), t.fees.toString(), t.net.toString()]).toEqual(["10", "1", "9"]);
  });

  it("short math: 100 → 90 wins 10, 100 → 110 loses 10", () => {
    expect(pair(trip({ entry: 100, exit: 90, direction: "short" })).roundTrips[0]!.gross.toString()).toBe(
      "10",
    );
    expect(pair(trip({ entry: 100, exit: 110, direction: "short" })).roundTrips[0]!.gross.toString()).toBe(
      "-10",
    );
  });

  it("sell then buy is a short with entry at the sell price", () => {
    const { roundTrips } = pair([
      { side: "sell", price: 110, quantity: 1, timestamp_ms: 1 },
      { side: "buy", price: 100, quantity: 1, timestamp_ms: 2 },
    ]);
    expect(roundTrips[0]!.direction).toBe("short");
    expect(roundTrips[0]!.entry_price.toString()).toBe("110");
    expect(roundTrips[0]!.exit_price.toString()).toBe("100");
  });

  it("holding time is exit minus entry", () => {
    expect(pair(trip({ entry: 1, exit: 2, t: 1000, hold: 60_000 })).roundTrips[0]!.holding_ms).toBe(60_000);
  });

  it("partial exits: buy 2, sell 1 @110, sell 1 @115 → two trips of 1, fees split pro rata", () => {
    const { roundTrips, open } = pair([
      { side: "buy", price: 100, quantity: 2, fee: 1, timestamp_ms: 1 },
      { side: "sell", price: 110, quantity: 1, fee: 0.3, timestamp_ms: 2 },
      { side: "sell", price: 115, quantity: 1, fee: 0.3, timestamp_ms: 3 },
    ]);
    expect(
      roundTrips.map((t) => [t.quantity.toString(), t.exit_price.toString(), t.entry_fee.toString()]),
    ).toEqual([
      ["1", "110", "0.5"],
      ["1", "115", "0.5"],
    ]);
    expect(open).toEqual([]);
  });

  it("unmatched fills stay open with their unused fee", () => {
    const { roundTrips, open } = pair([
      { side: "buy", price: 100, quantity: 3, fee: 0.9, timestamp_ms: 1 },
      { side: "sell", price: 110, quantity: 1, fee: 0, timestamp_ms: 2 },
    ]);
    expect(roundTrips).toHaveLength(1);
    expect(open[0]!.quantity.toString()).toBe("2");
    expect(open[0]!.fee.toString()).toBe("0.6");
  });

  it("a lone buy makes no round trip and does not crash", () => {
    const { roundTrips, open } = pair([{ side: "buy", price: 1, quantity: 1, timestamp_ms: 1 }]);
    expect(roundTrips).toEqual([]);
    expect(open).toHaveLength(1);
  });

  it("matches per instrument, and never across the wolf and cli logs", () => {
    const two = pair([
      ...trip({ entry: 1, exit: 2, instrument: "ETH-PERP" }),
      ...trip({ entry: 5, exit: 4, instrument: "BTC-PERP" }),
    ]);
    expect(two.roundTrips.map((t) => t.instrument).sort()).toEqual(["BTC-PERP", "ETH-PERP"]);
    const wolfBuy = records([{ side: "buy", price: 100, quantity: 1, timestamp_ms: 1 }], "wolf");
    const cliSell = records([{ side: "sell", price: 90, quantity: 1, timestamp_ms: 2 }], "cli");
    const mixed = pairRoundTrips([...wolfBuy, ...cliSell]);
    expect(mixed.roundTrips).toEqual([]);
    expect(mixed.open).toHaveLength(2);
  });

  it("orders fills by time even when the file is out of order", () => {
    const { roundTrips } = pair([
      { side: "sell", price: 110, quantity: 1, timestamp_ms: 20 },
      { side: "buy", price: 100, quantity: 1, timestamp_ms: 10 },
    ]);
    expect(roundTrips[0]!.direction).toBe("long");
  });

  it("conserves quantity and fees exactly (property)", () => {
    const fill = fc.record({
      buy: fc.boolean(),
      qty: fc.integer({ min: 1, max: 1000 }),
      fee: fc.integer({ min: 0, max: 999 }),
      price: fc.integer({ min: 1, max: 10_000 }),
      dt: fc.integer({ min: 0, max: 10 }),
    });
    fc.assert(
      fc.property(fc.array(fill, { minLength: 1, maxLength: 30 }), (fills) => {
        let t = 0;
        const lines = fills.map((f) => {
          t += f.dt;
          return {
            side: f.buy ? "buy" : "sell",
            price: f.price,
            quantity: f.qty / 100,
            fee: f.fee / 1000,
            timestamp_ms: t,
          };
        });
        const { trades, roundTrips, open } = pair(lines);
        const totalFee = trades.reduce((s, x) => s.plus(x.fee), new D(0));
        const tripFees = roundTrips.reduce((s, x) => s.plus(x.fees), new D(0));
        const openFees = open.reduce((s, x) => s.plus(x.fee), new D(0));
        // exact up to the 40 significant digits of the decimal context
        expect(tripFees.plus(openFees).minus(totalFee).abs().lt("1e-30")).toBe(true);
        const bought = trades.filter((x) => x.side === "buy").reduce((s, x) => s.plus(x.quantity), new D(0));
        const sold = trades.filter((x) => x.side === "sell").reduce((s, x) => s.plus(x.quantity), new D(0));
        const matched = roundTrips.reduce((s, x) => s.plus(x.quantity), new D(0));
        const openQty = open.reduce((s, x) => s.plus(x.quantity), new D(0));
        expect(matched.times(2).plus(openQty).eq(bought.plus(sold))).toBe(true);
        // at most one side of the book can be left open
        expect(new Set(open.map((l) => l.trade.side)).size).toBeLessThanOrEqual(1);
      }),
      { numRuns: 200 },
    );
  });
});
