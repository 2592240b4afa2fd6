import { describe, expect, it } from "vitest";
import { AddressBudget, requestCap, requestCount } from "../../../src/sim/auth/address-budget.ts";

const order = (n: number) => ({ type: "order", orders: Array.from({ length: n }, () => ({})) });
const cancel = (n: number) => ({ type: "cancel", cancels: Array.from({ length: n }, () => ({})) });

describe("the address-based limit (10,000 requests + 1 per USDC traded, then 1 per 10 s)", () => {
  it("caps at 10,000 plus one per whole USDC traded; a batch counts each order or cancel", () => {
    expect(requestCap(0)).toBe(10_000);
    expect(requestCap(87_457.46)).toBe(97_457);
    expect(requestCount(order(3))).toBe(3);
    expect(requestCount(cancel(2))).toBe(2);
    expect(requestCount({ type: "updateLeverage" })).toBe(1);
  });

  it("refuses past the cap with the exchange's own text, then lets one request through every 10 s", () => {
    let now = 1_000_000;
    const b = new AddressBudget(() => now);
    expect(b.spend("0xA", order(10_000), 0)).toBeUndefined();
    expect(b.used("0xa")).toBe(10_000);
    // The first request over the limit is the one let through for this 10 s slot.
    expect(b.spend("0xa", order(1), 0)).toBeUndefined();
    expect(b.spend("0xa", order(1), 0)).toBe(
      "Too many cumulative requests sent (10002 > 10000) for cumulative volume traded $0. Place taker orders to free up 1 request per USDC traded.",
    );
    now += 9_999;
    expect(b.spend("0xa", order(1), 0)).toMatch(/^Too many cumulative requests sent/);
    now += 1;
    expect(b.spend("0xa", order(1), 0)).toBeUndefined();
    // Volume traded frees requests: 5 USDC more lifts the cap by 5.
    expect(b.spend("0xa", order(1), 5.5)).toBeUndefined();
    expect(b.used("0xa")).toBe(10_003);
  });

  it("lets cancels go on to min(limit + 100,000, 2 × limit)", () => {
    const b = new AddressBudget(() => 0);
    expect(b.spend("0xa", order(10_000), 0)).toBeUndefined();
    expect(b.spend("0xa", cancel(10_000), 0)).toBeUndefined();
    expect(b.spend("0xa", cancel(1), 0)).toBeUndefined();
    expect(b.spend("0xa", cancel(1), 0)).toMatch(/^Too many cumulative requests sent \(20002 > 10000\)/);
  });

  it("carries the counts through a snapshot", () => {
    const b = new AddressBudget(() => 0);
    b.spend("0xa", order(7), 0);
    b.reserve("0xb", 5);
    const restored = AddressBudget.restore(b.snapshot());
    expect(restored.used("0xA")).toBe(7);
    expect(restored.surplus("0xB")).toBe(5);
    expect(AddressBudget.restore({ "0xc": 3 }).used("0xc")).toBe(3);
  });

  it("spends requests reserved with reserveRequestWeight first, then the cap", () => {
    let now = 0;
    const b = new AddressBudget(() => now);
    b.reserve("0xA", 3);
    b.reserve("0xa", 2);
    expect(b.surplus("0xa")).toBe(5);
    expect(b.spend("0xa", order(4), 0)).toBeUndefined();
    expect(b.used("0xa")).toBe(0);
    expect(b.surplus("0xa")).toBe(1);
    expect(b.spend("0xa", order(10_000), 0)).toBeUndefined();
    expect(b.used("0xa")).toBe(9_999);
    expect(b.surplus("0xa")).toBe(0);
    expect(b.spend("0xa", order(2), 0)).toBeUndefined(); // 10,001: the one let through this 10 s
    now = 1;
    expect(b.spend("0xa", order(1), 0)).toMatch(/^Too many cumulative requests sent \(10002 > 10000\)/);
    // Buying more lets the address go on at once, whatever its cap.
    b.reserve("0xa", 1);
    expect(b.spend("0xa", order(1), 0)).toBeUndefined();
    expect(b.used("0xa")).toBe(10_001);
    expect(b.spend("0xa", order(1), 0)).toMatch(/^Too many cumulative requests sent/);
  });
});
