import { describe, expect, it } from "vitest";
import type { FundingRow } from "../../src/backtest/market-history.ts";
import { REFUSAL } from "../../src/backtest/replay-venue.ts";
import { type Bar, MINUTE, orderRequest, T0, venueRig } from "../support/replay-venue-rig.ts";

const M = MINUTE;

/** Candles [o, h, l, c] of volume 10, the snapshot carrying the last 3. */
const venue = (bars: Bar[], opts: { latencyMs?: number; funding?: FundingRow[] } = {}) =>
  venueRig(bars, { candleWindow: 3, ...opts });
const order = orderRequest;

describe("replay venue (candle fills)", () => {
  it("a resting buy fills only when the low trades strictly below its price, at its price, as a maker", async () => {
    const { v, ledger, at } = venue([
      [101, 102, 100, 101],
      [101, 102, 99.9, 100.5],
    ]);
    expect((await v.place([order("buy", "100", "1")]))[0]?.status).toBe("resting");
    at(T0 + M);
    expect(await v.fills("ETH-PERP", 0)).toEqual([]); // the low touched 100: no fill
    expect(await v.openOrders()).toHaveLength(1);
    at(T0 + 2 * M);
    const [f] = await v.fills("ETH-PERP", 0);
    expect(f).toMatchObject({ side: "buy", price: "100", size: "1", fee: "0.015", timeMs: T0 + M });
    expect(await v.openOrders()).toEqual([]);
    expect(ledger.qty.toString()).toBe("1");
    expect(ledger.fills[0]?.liquidity).toBe("maker");
  });

  it("answers at once (the engine's no-await path) what its promises answer", async () => {
    const { v, at } = venue([
      [101, 102, 100, 101],
      [101, 102, 99.9, 100.5],
      [100.5, 101, 100, 100.8],
    ]);
    await v.place([order("buy", "100", "1"), order("sell", "102.5", "1")]);
    for (const ms of [T0 + M, T0 + 2 * M, T0 + 3 * M]) {
      at(ms);
      expect(v.snapshotNow("ETH-PERP")).toEqual(await v.snapshot("ETH-PERP"));
      expect(v.openOrdersNow()).toEqual(await v.openOrders());
      expect(v.fillsNow("ETH-PERP", 0)).toEqual(await v.fills("ETH-PERP", 0));
    }
    expect(v.fillsNow("ETH-PERP", 0)).toHaveLength(1);
    expect(v.openOrdersNow()).toHaveLength(1);
  });

  it("an IOC takes the touch at its arrival (one tick from the last close) moved by the slippage, as a taker", async () => {
    const { v, ledger, at } = venue([
      [100, 100, 100, 100],
      [100, 101, 99, 103],
      [103, 104, 102, 103],
    ]);
    at(T0 + M);
    await v.place([order("buy", "100.05", "2", "Ioc")]);
    at(T0 + 2 * M);
    const [f] = await v.fills("ETH-PERP", 0);
    // Ask 100.01 × (1 + 1 bp) = 100.020001, rounded up onto the grid; taker fee 4.5 bp.
    expect(f).toMatchObject({ price: "100.03", size: "2", fee: "0.090027", timeMs: T0 + M });
    // Bid 102.99 × (1 − 1 bp) = 102.979701 → 102.97.
    await v.place([order("sell", "102", "2", "Ioc", true)]);
    at(T0 + 3 * M);
    expect((await v.fills("ETH-PERP", T0 + 2 * M)).map((x) => x.price)).toEqual(["102.97"]);
    expect(ledger.qty.isZero()).toBe(true);
    await v.place([order("buy", "102", "1", "Ioc")]);
    expect(ledger.fills).toHaveLength(2);
  });

  it("an IOC whose slipped price passes its limit lapses; a limit through the touch on arrival takes", async () => {
    const { v, ledger, at } = venue([
      [100, 100, 100, 100],
      [100, 100, 100, 100],
    ]);
    at(T0 + M);
    await v.place([order("buy", "100.01", "1", "Ioc"), order("buy", "100.05", "1")]);
    at(T0 + 2 * M);
    expect((await v.fills("ETH-PERP", 0)).map((f) => f.price)).toEqual(["100.03"]);
    expect(ledger.fills[0]?.liquidity).toBe("taker");
  });

  it("latency: an order arriving inside a candle first trades in the next one; a cancel likewise", async () => {
    const { v, at } = venue(
      [
        [100, 100, 100, 100],
        [100, 100, 95, 100],
        [100, 100, 95, 100],
        [100, 100, 95, 100],
      ],
      { latencyMs: 1 },
    );
    at(T0 + M);
    await v.place([order("buy", "99", "1")]);
    at(T0 + 2 * M);
    expect(await v.fills("ETH-PERP", 0)).toEqual([]); // arrived at T0+M+1: missed the candle opening at T0+M
    at(T0 + 3 * M);
    expect((await v.fills("ETH-PERP", 0))[0]?.timeMs).toBe(T0 + 2 * M);
  });

  it("refuses what Hyperliquid refuses: under $10, off-tick, too many size decimals, reduce-only that adds, crossing post-only", async () => {
    const { v, at } = venue([
      [100, 100, 100, 100],
      [100, 100, 100, 100],
    ]);
    at(T0 + M);
    const out = await v.place([
      order("buy", "99", "0.1"),
      order("buy", "99.123", "1"),
      order("buy", "99", "0.00001"),
      order("sell", "101", "1", "Gtc", true),
      order("buy", "101", "1", "Alo"),
    ]);
    expect(out.map((o) => (o.status === "rejected" ? o.message : o.status))).toEqual([
      REFUSAL.minValue,
      REFUSAL.tick,
      REFUSAL.size,
      REFUSAL.reduceOnly,
      REFUSAL.postOnly,
    ]);
    const cancel = await v.cancel("ETH-PERP", [{ oid: "999", side: "buy", price: "1", size: "1" }]);
    expect(cancel.failed[0]?.message).toBe(REFUSAL.unknownOrder);
  });

  it("charges hourly funding on the position at the candle's price: longs pay a positive rate", async () => {
    const bars: [number, number, number, number][] = Array.from({ length: 62 }, () => [100, 100, 100, 100]);
    bars[1] = [100, 100, 90, 100];
    const { v, ledger, at } = venue(bars, { funding: [{ t: T0 + 60 * M, rate: "0.0001", premium: "0" }] });
    await v.place([order("buy", "99", "2")]);
    at(T0 + 62 * M);
    await v.snapshot("ETH-PERP");
    expect(ledger.qty.toString()).toBe("2");
    expect(ledger.funding.toString()).toBe("-0.02");
    const snap = await v.snapshot("ETH-PERP");
    expect(snap.fundingRate).toBe(0.0001);
    expect(snap.candles).toHaveLength(3);
    expect(snap.mid).toBe(100);
  });
});
