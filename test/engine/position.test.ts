import { describe, expect, it } from "vitest";
import { Position } from "../../src/engine/position.ts";

describe("average-cost position", () => {
  it("adds, reduces through zero and flattens with exact realized PnL", () => {
    const p = new Position("ETH-PERP");
    p.applyFill("buy", "100", "1");
    p.applyFill("buy", "110", "1");
    expect(p.avg.toString()).toBe("105");
    p.applyFill("sell", "120", "3");
    expect(p.realized.toString()).toBe("30");
    expect(p.qty.toString()).toBe("-1");
    expect(p.avg.toString()).toBe("120");
    p.applyFill("buy", "100", "1");
    expect(p.realized.toString()).toBe("50");
    expect(p.qty.isZero()).toBe(true);
    expect(p.unrealized("130").toString()).toBe("0");
  });

  it("fees are kept and subtracted from net PnL; unrealized is marked and serialised", () => {
    const p = new Position("ETH-PERP");
    p.applyFill("buy", "2500.1", "0.3", "0.33");
    p.mark = p.mark.plus("2510.1");
    const j = p.toJson();
    expect(j.unrealized_pnl).toBe("3");
    expect(j.fees_paid).toBe("0.33");
    expect(p.netPnl().toString()).toBe("2.67");
    expect(Position.fromJson(j).toJson()).toEqual(j);
  });
});
