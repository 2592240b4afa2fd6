import { describe, expect, it } from "vitest";
import { parseTradeLog } from "../../src/review/trade-log.ts";

const base = {
  tick: 1,
  oid: "a",
  instrument: "ETH-PERP",
  price: "100",
  quantity: "1",
  timestamp_ms: 1000,
  fee: "0.5",
  strategy: "wolf",
};
const text = (...objs: unknown[]) =>
  objs.map((o) => (typeof o === "string" ? o : JSON.stringify(o))).join("\n");

describe("parseTradeLog", () => {
  it("parses decimal strings and numbers exactly", () => {
    const { trades, skipped } = parseTradeLog(
      text({ ...base, side: "buy", price: "2500.5", quantity: 1.5, fee: 0.25 }),
      "wolf",
    );
    expect(skipped).toEqual([]);
    expect(trades[0]!.price.toString()).toBe("2500.5");
    expect(trades[0]!.quantity.toString()).toBe("1.5");
    expect(trades[0]!.fee.toString()).toBe("0.25");
    expect(trades[0]!.mode).toBe("wolf");
  });

  it("normalises the side spellings producers use, and refuses unknown sides instead of calling them sells", () => {
    const sides = ["buy", "BUY", "B", "bid", "sell", "Sell", "A", "ask", "s"];
    const { trades } = parseTradeLog(
      text(...sides.map((side, i) => ({ ...base, oid: `o${i}`, side }))),
      "cli",
    );
    expect(trades.map((t) => t.side)).toEqual([
      "buy",
      "buy",
      "buy",
      "buy",
      "sell",
      "sell",
      "sell",
      "sell",
      "sell",
    ]);
    const bad = parseTradeLog(text({ ...base, side: "hold" }), "cli");
    expect(bad.trades).toEqual([]);
    expect(bad.skipped[0]!.reason).toContain("unknown side");
  });

  it("skips bad lines with their line numbers instead of failing the whole log", () => {
    const log = parseTradeLog(
      text(
        { ...base, side: "buy" },
        "{not json",
        "",
        { ...base, side: "sell", price: "abc" },
        { ...base, side: "sell", quantity: "0" },
        { ...base, side: "sell" },
      ),
      "wolf",
    );
    expect(log.trades).toHaveLength(2);
    expect(log.skipped.map((s) => s.line)).toEqual([2, 4, 5]);
    expect(log.skipped[2]!.reason).toContain("quantity");
  });

  it("defaults missing optional fields (fee 0, meta empty, no signal score)", () => {
    const { trades } = parseTradeLog(
      text({ instrument: "BTC-PERP", side: "buy", price: "1", quantity: "1", timestamp_ms: 5 }),
      "wolf",
    );
    expect(trades[0]!.fee.isZero()).toBe(true);
    expect(trades[0]!.meta).toBe("");
    expect(trades[0]!.signal_score).toBeNull();
  });

  it("gives repeated fills of one order distinct, stable uids", () => {
    const a = parseTradeLog(
      text({ ...base, side: "buy" }, { ...base, side: "buy" }, { ...base, side: "buy", timestamp_ms: 2000 }),
      "wolf",
    );
    expect(new Set(a.trades.map((t) => t.uid)).size).toBe(3);
    const b = parseTradeLog(
      text(
        { ...base, side: "buy" },
        { ...base, side: "buy" },
        { ...base, side: "buy", timestamp_ms: 2000 },
        { ...base, side: "sell", oid: "z" },
      ),
      "wolf",
    );
    expect(b.trades.slice(0, 3).map((t) => t.uid)).toEqual(a.trades.map((t) => t.uid));
  });

  it("reads entry_signal_score as the signal score", () => {
    const { trades } = parseTradeLog(text({ ...base, side: "buy", entry_signal_score: 210 }), "wolf");
    expect(trades[0]!.signal_score).toBe(210);
  });
});
