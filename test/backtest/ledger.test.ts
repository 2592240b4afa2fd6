import { describe, expect, it } from "vitest";
import { Ledger, type LedgerFill } from "../../src/backtest/ledger.ts";

let id = 0;
function fill(side: "buy" | "sell", price: string, size: string, fee = "0", t = 0): LedgerFill {
  id += 1;
  return { id: String(id), time_ms: t, side, price, size, fee, liquidity: "taker" };
}

describe("backtest ledger", () => {
  it("books a round trip with its fees and funding, in exact decimals", () => {
    const l = new Ledger();
    l.applyFill(fill("buy", "100.1", "0.3", "0.01", 1));
    l.applyFill(fill("buy", "100.2", "0.7", "0.02", 2));
    l.applyFunding("100", "0.0001");
    l.applyFill(fill("sell", "101", "1", "0.03", 3));
    expect(l.qty.isZero()).toBe(true);
    expect(l.realized.toString()).toBe("0.83");
    expect(l.funding.toString()).toBe("-0.01");
    expect(l.netPnl("0").toString()).toBe("0.76");
    const [t] = l.roundTrips("101");
    expect(t).toEqual({
      side: "long",
      opened_ms: 1,
      closed_ms: 3,
      size: "1",
      entry_px: "100.17",
      exit_px: "101",
      pnl: "0.83",
      fees: "0.06",
      funding: "-0.01",
      net_pnl: "0.76",
      exit_reason: null,
    });
  });

  it("a flip closes one trip and opens the next, splitting the fill's fee by size", () => {
    const l = new Ledger();
    l.applyFill(fill("sell", "50", "1", "0", 1));
    l.applyFill(fill("buy", "40", "3", "0.3", 2));
    const trips = l.roundTrips("45");
    expect(trips).toHaveLength(2);
    expect(trips[0]).toMatchObject({ side: "short", pnl: "10", fees: "0.1", net_pnl: "9.9", closed_ms: 2 });
    expect(trips[1]).toMatchObject({
      side: "long",
      closed_ms: null,
      size: "2",
      entry_px: "40",
      pnl: "10",
      fees: "0.2",
    });
    expect(l.qty.toString()).toBe("2");
    expect(l.pnlAt(45)).toBeCloseTo(10 - 0.3 + 10, 9);
  });
});
