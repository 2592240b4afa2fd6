import { describe, expect, it } from "vitest";
import { dec } from "../../src/core/decimal.ts";
import { Position } from "../../src/engine/position.ts";
import { type FillContext, PositionTracker } from "../../src/review/position-tracker.ts";

const OURS: FillContext = { ours: true, risk: "ok" };

/** Drives a tracker exactly as the engine does: position before, apply, position after. */
function driver() {
  const position = new Position("ETH-PERP");
  const tracker = new PositionTracker("ETH-PERP", "strategy:simple_mm");
  let t = 1_000;
  return (side: "buy" | "sell", price: string, size: string, fee = "0", ctx = OURS) => {
    const before = { qty: position.qty, avg: position.avg };
    position.applyFill(side, price, size, fee);
    t += 1_000;
    return tracker.onFill({ side, price, size, fee, timeMs: t }, before, position, ctx);
  };
}

describe("position tracker (strategy journal)", () => {
  it("flat → long → flat is one closed position with net PnL and return on notional", () => {
    const fill = driver();
    expect(fill("buy", "100", "1", "0.1")).toBeNull();
    expect(fill("buy", "110", "1", "0.1")).toBeNull();
    expect(fill("sell", "120", "1", "0.1")).toBeNull();
    const closed = fill("sell", "120", "1", "0.1")!;
    expect(closed).toMatchObject({
      instrument: "ETH-PERP",
      direction: "long",
      entry_ts: 2_000,
      close_ts: 5_000,
      entry_source: "strategy:simple_mm",
      close_reason: "strategy_exit",
    });
    expect(dec(closed.entry_price).toString()).toBe("105");
    expect(dec(closed.exit_price).toString()).toBe("120");
    expect(dec(closed.size).toString()).toBe("2");
    expect(dec(closed.pnl).toString()).toBe("29.6"); // 15 · 2 − 0.4
    expect(closed.roe_pct).toBeCloseTo((29.6 / 210) * 100, 6);
  });

  it("a flip closes the short and opens a long with the rest; the fee is split by size", () => {
    const fill = driver();
    fill("sell", "100", "2", "0");
    const closed = fill("buy", "90", "3", "0.3")!;
    expect(closed).toMatchObject({ direction: "short" });
    expect(dec(closed.size).toString()).toBe("2");
    expect(dec(closed.pnl).toString()).toBe("19.8"); // 10 · 2 − 0.2
    const next = fill("sell", "95", "1", "0")!;
    expect(next).toMatchObject({ direction: "long" });
    expect(dec(next.pnl).toString()).toBe("4.9"); // 5 − the remaining 0.1 of the flip's fee
  });

  it("names a close by a fill this run did not send, and one under a risk limit", () => {
    const outside = driver();
    outside("buy", "100", "1");
    expect(outside("sell", "99", "1", "0", { ours: false, risk: "ok" })!.close_reason).toMatch(
      /^closed_outside: .*hl close/,
    );
    const risk = driver();
    risk("buy", "100", "1");
    expect(risk("sell", "99", "1", "0", { ours: true, risk: "reduce_only" })!.close_reason).toMatch(
      /^risk_reduce_only/,
    );
  });

  it("a position open before the run started is closed from its average entry", () => {
    const position = new Position("ETH-PERP");
    position.adopt("2", "50");
    const tracker = new PositionTracker("ETH-PERP", "strategy:x");
    const before = { qty: position.qty, avg: position.avg };
    position.applyFill("sell", "55", "2", "0");
    const closed = tracker.onFill(
      { side: "sell", price: "55", size: "2", fee: "0", timeMs: 9 },
      before,
      position,
      OURS,
    )!;
    expect(dec(closed.pnl).toString()).toBe("10");
    expect(closed.entry_ts).toBe(9);
  });
});
