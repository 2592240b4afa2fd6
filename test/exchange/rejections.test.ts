import { describe, expect, it } from "vitest";
import { RateLimitedError, RejectedError, TimeoutError } from "../../src/exchange/errors.ts";
import { CoinCooldowns, classifyRejection, rejectionOf } from "../../src/exchange/rejections.ts";

// Hyperliquid's documented order errors (api/error-responses), as the exchange sends them (with `asset=`).
const REAL: [string, string, string][] = [
  ["Price must be divisible by tick size. asset=0", "tick_size", "retry_next_tick"],
  ["Order must have minimum value of $10. asset=4", "min_value", "retry_next_tick"],
  ["Insufficient margin to place order. asset=173", "insufficient_margin", "shrink"],
  ["Reduce only order would increase position. asset=173", "reduce_only_increase", "retry_next_tick"],
  [
    "Post only order would have immediately matched, bbo was 2500.1@2500.2. asset=1",
    "post_only_match",
    "retry_next_tick",
  ],
  [
    "Order could not immediately match against any resting orders. asset=1",
    "ioc_no_match",
    "retry_next_tick",
  ],
  ["No liquidity available for market order. asset=7", "no_liquidity", "skip_coin"],
  ["Order would increase open interest while open interest is capped", "open_interest_cap", "skip_coin"],
  [
    "Order rejected due to price more aggressive than oracle while at open interest cap",
    "open_interest_cap",
    "skip_coin",
  ],
  ["Order would increase open interest too quickly", "open_interest_cap", "skip_coin"],
  ["Order price too far from oracle", "oracle_price", "skip_coin"],
  ["Order would cause position to exceed margin tier limit at current leverage", "max_position", "shrink"],
  [
    "Too many cumulative requests sent (14295 > 14294) for cumulative volume traded $4295.52. Place taker orders to free up 1 request per USDC traded.",
    "rate_limited",
    "skip_coin",
  ],
  ["Too many open orders", "max_open_orders", "skip_coin"],
  [
    "User or API Wallet 0x0000000000000000000000000000000000000001 does not exist.",
    "account_missing",
    "stop",
  ],
  ["Order has invalid price.", "tick_size", "retry_next_tick"],
  ["Order price cannot be more than 80% away from the reference price", "oracle_price", "skip_coin"],
  // A delisted or halted market (recorded mainnet answers carry no asset suffix; the sim's neither).
  ["Trading is halted.", "market_halted", "skip_coin"],
  ["Trading is halted. asset=173", "market_halted", "skip_coin"],
  ["Invalid TP/SL price. asset=1", "bad_trigger_price", "retry_next_tick"],
  ["(Spot-only) Order has insufficient spot balance to trade", "insufficient_spot_balance", "shrink"],
];

describe("classifyRejection", () => {
  it.each(REAL)("%s → %s / %s", (message, reason, reaction) => {
    const r = classifyRejection(message);
    expect(r.reason).toBe(reason);
    expect(r.reaction).toBe(reaction);
    expect(r.message).toBe(message);
    expect(r.cooldownMs > 0).toBe(reaction === "skip_coin");
  });

  it("an unrecognised refusal is not retried blindly", () => {
    const r = classifyRejection("Something new the exchange says.");
    expect(r).toMatchObject({ reason: "unknown", reaction: "skip_coin" });
    expect(r.cooldownMs).toBeGreaterThan(0);
  });

  it("a halted market is left alone far longer than a passing refusal: it stays halted for hours or for good", () => {
    const halted = classifyRejection("Trading is halted.");
    const passing = classifyRejection("No liquidity available for market order. asset=7");
    expect(halted.cooldownMs).toBeGreaterThanOrEqual(30 * 60_000);
    expect(halted.cooldownMs).toBeGreaterThan(passing.cooldownMs);
  });

  it("every order refusal in the exchange's error table is recognised (none falls to unknown)", () => {
    // Hyperliquid docs, for-developers/api/error-responses: every "Order" row, as the exchange words it.
    const table = [
      "Price must be divisible by tick size.",
      "Order must have minimum value of $10.",
      "Order must have minimum value of 10 USDC.",
      "Insufficient margin to place order.",
      "Reduce only order would increase position.",
      "Post only order would have immediately matched, bbo was 1@2.",
      "Order could not immediately match against any resting orders.",
      "Invalid TP/SL price.",
      "No liquidity available for market order.",
      "Order would increase open interest while open interest is capped",
      "Order rejected due to price more aggressive than oracle while at open interest cap",
      "Order would increase open interest too quickly",
      "(Spot-only) Order has insufficient spot balance to trade",
      "Order price too far from oracle",
      "Order would cause position to exceed margin tier limit at current leverage",
    ];
    expect(table.map((m) => [m, classifyRejection(m).reason]).filter(([, r]) => r === "unknown")).toEqual([]);
  });

  it("the address rate limit waits the exchange's 10 s", () => {
    expect(classifyRejection(REAL[12]![0]).cooldownMs).toBe(10_000);
  });
});

describe("rejectionOf", () => {
  it("classifies refusals and 429s, and leaves unknown outcomes alone", () => {
    expect(rejectionOf(new RejectedError("Insufficient margin to place order. asset=0"))?.reason).toBe(
      "insufficient_margin",
    );
    expect(rejectionOf(new RateLimitedError("rate limited by the exchange"))?.reason).toBe("rate_limited");
    expect(rejectionOf(new TimeoutError("no answer within 10000 ms"))).toBeUndefined();
    expect(rejectionOf(new Error("socket hang up"))).toBeUndefined();
  });
});

describe("CoinCooldowns", () => {
  it("keeps a coin aside for the cooldown of a skip_coin rejection only", () => {
    const c = new CoinCooldowns();
    c.note("ETH", classifyRejection("Insufficient margin to place order."), 0);
    expect(c.blocking("ETH", 1)).toBeUndefined();
    c.note("ETH", classifyRejection("No liquidity available for market order."), 1_000);
    expect(c.blocking("ETH", 60_999)?.reason).toBe("no_liquidity");
    expect(c.blocking("BTC", 2_000)).toBeUndefined();
    expect(c.blocking("ETH", 61_000)).toBeUndefined();
  });

  it("a halted market keeps its coin aside for the hour", () => {
    const c = new CoinCooldowns();
    c.note("ETH", classifyRejection("Trading is halted."), 0);
    expect(c.blocking("ETH", 59 * 60_000)?.reason).toBe("market_halted");
    expect(c.blocking("ETH", 60 * 60_000)).toBeUndefined();
  });
});
