import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { feeRates } from "../../src/backtest/fee-schedule.ts";
import { Ledger } from "../../src/backtest/ledger.ts";
import { CandleSeries } from "../../src/backtest/market-history.ts";
import { MarketTape } from "../../src/backtest/market-tape.ts";
import { ReplayVenue } from "../../src/backtest/replay-venue.ts";
import { sizeAhead, tradeAgainst } from "../../src/backtest/trade-fill-model.ts";
import type { Cloid } from "../../src/engine/ports.ts";
import type { BookRow, CandleRow, TradeRow } from "../../src/market/types.ts";

const book = {
  bids: [
    [100, 5],
    [99.9, 7],
  ] as const,
  asks: [
    [100.1, 4],
    [100.2, 6],
  ] as const,
};

describe("trade fill model (queue position)", () => {
  it("the size displayed at the order's price is ahead of it; a better price has nobody ahead", () => {
    expect(sizeAhead(book, "buy", 100)).toBe(5);
    expect(sizeAhead(book, "buy", 99.9)).toBe(7);
    expect(sizeAhead(book, "buy", 100.05)).toBe(0);
    expect(sizeAhead(book, "sell", 100.2)).toBe(6);
    expect(sizeAhead(undefined, "sell", 1)).toBe(0);
  });

  it("trades at the price use up the queue first; through the price the order fills; the other side never", () => {
    expect(tradeAgainst("buy", 100, 5, 2, { px: 100, sz: 3, taker: "sell" })).toEqual({
      filled: 0,
      queue: 2,
    });
    expect(tradeAgainst("buy", 100, 2, 2, { px: 100, sz: 3, taker: "sell" })).toEqual({
      filled: 1,
      queue: 0,
    });
    expect(tradeAgainst("buy", 100, 5, 2, { px: 99.9, sz: 10, taker: "sell" })).toEqual({
      filled: 2,
      queue: 0,
    });
    expect(tradeAgainst("buy", 100, 0, 2, { px: 100, sz: 10, taker: "buy" })).toEqual({
      filled: 0,
      queue: 0,
    });
    expect(tradeAgainst("sell", 100, 0, 2, { px: 100.1, sz: 1, taker: "buy" })).toEqual({
      filled: 1,
      queue: 0,
    });
  });

  it("never fills more than the trade or the order, and the queue never grows", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("buy" as const, "sell" as const),
        fc.integer({ min: 0, max: 50 }),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 98, max: 102 }),
        fc.integer({ min: 1, max: 50 }),
        fc.constantFrom("buy" as const, "sell" as const),
        (side, queue, remaining, px, sz, taker) => {
          const r = tradeAgainst(side, 100, queue, remaining, { px, sz, taker });
          expect(r.filled).toBeGreaterThanOrEqual(0);
          expect(r.filled).toBeLessThanOrEqual(Math.min(sz, remaining));
          expect(r.queue).toBeLessThanOrEqual(queue);
          expect(r.queue).toBeGreaterThanOrEqual(0);
        },
      ),
    );
  });

  it("the venue replays recorded trades and books inside their window, with queue position and exact times", async () => {
    const M = 60_000;
    const T0 = Date.UTC(2026, 0, 1);
    const candles: CandleRow[] = [0, 1, 2].map((i) => ({
      t: T0 + i * M,
      T: T0 + i * M + M - 1,
      o: "100",
      h: "100.2",
      l: "99.5",
      c: "100",
      v: "50",
      n: 9,
    }));
    const books: BookRow[] = [{ t: T0 + M + 1, bids: [["100", "3"]], asks: [["100.1", "2"]] }];
    const trades: TradeRow[] = [
      { t: T0 + M + 10, px: "100", sz: "2", side: "A", tid: "1" }, // 2 of the 3 ahead trade
      { t: T0 + M + 20, px: "100", sz: "1.5", side: "A", tid: "2" }, // 1 ahead, 0.5 for us
      { t: T0 + M + 30, px: "99.9", sz: "5", side: "A", tid: "3" }, // through: the rest of ours
    ];
    let now = T0 + M;
    const ledger = new Ledger();
    const v = new ReplayVenue(
      new CandleSeries(candles, M),
      [],
      {
        instrument: "ETH-PERP",
        szDecimals: 4,
        now: () => now,
        fees: feeRates(0),
        latencyMs: 5,
        slippageBps: 1,
        participation: 1,
        candleWindow: 0,
        ledger,
        startMs: T0,
      },
      new MarketTape(trades, books),
    );
    await v.snapshot("ETH-PERP");
    const cloid = `0x${"1".padStart(32, "0")}` as Cloid;
    await v.place([
      {
        instrument: "ETH-PERP",
        cloid,
        side: "buy",
        price: "100",
        size: "0.8",
        tif: "Gtc",
        reduceOnly: false,
      },
    ]);
    now = T0 + 2 * M;
    const snap = await v.snapshot("ETH-PERP");
    expect(snap).toMatchObject({ bid: 100, ask: 100.1, mid: 100.05 });
    const fills = await v.fills("ETH-PERP", 0);
    expect(fills.map((f) => [f.size, f.price, f.timeMs])).toEqual([
      ["0.5", "100", T0 + M + 20],
      ["0.3", "100", T0 + M + 30],
    ]);
    expect(ledger.qty.toString()).toBe("0.8");
    expect(await v.openOrders()).toEqual([]);
  });
});
