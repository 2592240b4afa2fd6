import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { feeRates } from "../../../src/backtest/fee-schedule.ts";
import { REFUSAL } from "../../../src/backtest/replay-venue.ts";
import { CoinReplay } from "../../../src/backtest/wolf/coin-replay.ts";
import { ReplayWolfPort } from "../../../src/backtest/wolf/replay-wolf-port.ts";
import { type CoinHistory, loadUniverse } from "../../../src/backtest/wolf/universe.ts";
import { writeCandles } from "../../../src/market/index.ts";
import type { CandleRow } from "../../../src/market/types.ts";

const T0 = Date.parse("2026-01-01T00:00:00Z");
const MIN = 60_000;

/** 1 m candles from T0: candle i opens at 100 + i, high +0.5, low −0.5, closes at 100 + i + 0.25, volume 10. */
function history(coin: string, n: number, extra: Partial<CoinHistory> = {}): CoinHistory {
  const candles: CandleRow[] = [];
  for (let i = 0; i < n; i++) {
    const o = 100 + i;
    candles.push({
      t: T0 + i * MIN,
      T: T0 + i * MIN + MIN - 1,
      o: String(o),
      h: String(o + 0.5),
      l: String(o - 0.5),
      c: String(o + 0.25),
      v: "10",
      n: 1,
    });
  }
  return { coin, candles, funding: [], assetCtxs: [], ...extra };
}

function setup(h: CoinHistory[], o: { latencyMs?: number; endMs?: number; participation?: number } = {}) {
  let now = T0;
  const coins = h.map((x) => new CoinReplay(x, MIN, 2, 20));
  const port = new ReplayWolfPort(coins, {
    now: () => now,
    fees: feeRates(0),
    latencyMs: o.latencyMs ?? 0,
    slippageBps: 10,
    participation: o.participation ?? 1,
    endMs: o.endMs ?? Infinity,
    waitUntil: (ms) => at(ms),
  });
  const at = (ms: number) => {
    now = ms;
    for (const c of coins) c.advanceTo(ms);
  };
  return { port, coins, at };
}

describe("CoinReplay candles (what the scanner and movers read)", () => {
  it("builds coarser candles from the recorded ones, the forming one only from closed candles", () => {
    const { coins, at } = setup([history("ETH", 60)]);
    const eth = coins[0]!;
    at(T0 + 20 * MIN);
    const c15 = eth.candles(15 * MIN, T0, T0 + 60 * MIN, T0 + 20 * MIN);
    expect(c15).toHaveLength(2);
    expect(c15[0]).toEqual({ t: T0, T: T0 + 15 * MIN - 1, o: 100, h: 114.5, l: 99.5, c: 114.25, v: 150 });
    // Forming: candles 15..19 have closed, 20 has not (no look-ahead).
    expect(c15[1]).toEqual({
      t: T0 + 15 * MIN,
      T: T0 + 30 * MIN - 1,
      o: 115,
      h: 119.5,
      l: 114.5,
      c: 119.25,
      v: 50,
    });
    // Finer than recorded: none.
    at(T0 + 60 * MIN);
    expect(coins[0]!.candles(30_000, T0, T0 + 60 * MIN, T0 + 60 * MIN)).toEqual([]);
    // The range is honoured and a closed hour is one candle.
    expect(eth.candles(3_600_000, T0, T0 + 3_600_000, T0 + 60 * MIN)).toEqual([
      { t: T0, T: T0 + 3_600_000 - 1, o: 100, h: 159.5, l: 99.5, c: 159.25, v: 600 },
    ]);
  });
});

describe("ReplayWolfPort market data", () => {
  it("lists only priced coins with mark, rolling volume, funding rate and recorded open interest", async () => {
    const eth = history("ETH", 30, {
      funding: [{ t: T0 + 5 * MIN, rate: "0.0001", premium: "0" }],
      assetCtxs: [
        {
          t: T0 + 2 * MIN,
          funding: "0.0001",
          openInterest: "1000",
          oraclePx: "102",
          markPx: "102",
          midPx: null,
          premium: null,
          dayNtlVlm: "0",
          prevDayPx: "100",
        },
      ],
    });
    const late = history("SOL", 40);
    late.candles = late.candles.slice(20);
    const { port, at } = setup([eth, late]);
    at(T0 + 10 * MIN);
    const m = await port.markets();
    expect(m).toHaveLength(1);
    expect(m[0]).toMatchObject({
      name: "ETH",
      mark_price: 109.25,
      funding_rate: 0.0001,
      open_interest: 1000,
      open_interest_usd: 109250,
      delisted: false,
    });
    // Σ v × close over the 10 closed candles.
    expect(m[0]!.volume_24h).toBeCloseTo(10 * (100.25 + 109.25) * 5, 6);
    expect(await port.mids()).toEqual({ ETH: "109.25" });
    // A recording that stops before the period's end reads as a delisted coin.
    at(T0 + 30 * MIN);
    expect((await port.markets()).map((x) => [x.name, x.delisted])).toEqual([
      ["ETH", true],
      ["SOL", false],
    ]);
    await expect(port.candles("DOGE", "1h", T0, T0 + MIN)).rejects.toThrow(/no recorded history for DOGE/);
  });
});

describe("ReplayWolfPort orders", () => {
  it("fills an IOC at the next open moved by the slippage, charges the taker fee, holds the position", async () => {
    const { port, at } = setup([history("ETH", 30)]);
    at(T0 + 10 * MIN);
    const r = await port.ioc({
      coin: "ETH",
      side: "buy",
      size: "1",
      slippage: 0.01,
      reduceOnly: false,
      cloid: "0x01",
    });
    // Next open 110 × (1 + 10 bps) = 110.11, under the limit 109.25 × 1.01.
    expect(r).toEqual({ status: "filled", oid: "1", size: "1", price: "110.11", fee: "0.0495495" });
    expect(await port.positions()).toEqual([{ coin: "ETH", szi: "1", entryPx: "110.11" }]);
    expect(await port.fillsSince("ETH", T0 + 10 * MIN)).toHaveLength(1);
    expect(await port.fillsSince("ETH", T0 + 11 * MIN)).toHaveLength(0);
    // Reduce-only larger than the position is cut to it.
    at(T0 + 12 * MIN);
    const close = await port.ioc({
      coin: "ETH",
      side: "sell",
      size: "5",
      slippage: 0.05,
      reduceOnly: true,
      cloid: "0x02",
    });
    expect(close).toMatchObject({ status: "filled", size: "1", price: "111.88" });
    expect(await port.positions()).toEqual([]);
    expect(port.iocsSent).toBe(2);
    expect(port.iocsUnfilled).toBe(0);
  });

  it("does not fill beyond the limit, refuses what the exchange refuses, and nothing past the period", async () => {
    const { port, at } = setup([history("ETH", 30)], { endMs: T0 + 20 * MIN });
    at(T0 + 10 * MIN);
    // Limit 109.25 × 1.001 → 109.35; the next open is 110: no fill.
    const tight = await port.ioc({
      coin: "ETH",
      side: "buy",
      size: "1",
      slippage: 0.001,
      reduceOnly: false,
      cloid: "0x01",
    });
    expect(tight).toMatchObject({ status: "unfilled" });
    expect(tight.status === "unfilled" && tight.rejection).toBeUndefined();
    const flat = await port.ioc({
      coin: "ETH",
      side: "sell",
      size: "1",
      slippage: 0.05,
      reduceOnly: true,
      cloid: "0x02",
    });
    expect(flat).toMatchObject({
      status: "unfilled",
      message: REFUSAL.reduceOnly,
      rejection: { reason: expect.any(String) },
    });
    const small = await port.ioc({
      coin: "ETH",
      side: "buy",
      size: "0.05",
      slippage: 0.05,
      reduceOnly: false,
      cloid: "0x03",
    });
    expect(small).toMatchObject({ status: "unfilled", message: REFUSAL.minValue });
    const lots = await port.ioc({
      coin: "ETH",
      side: "buy",
      size: "0.001",
      slippage: 0.05,
      reduceOnly: false,
      cloid: "0x04",
    });
    expect(lots).toMatchObject({ status: "unfilled", message: REFUSAL.size });
    at(T0 + 20 * MIN);
    const late = await port.ioc({
      coin: "ETH",
      side: "buy",
      size: "1",
      slippage: 0.05,
      reduceOnly: false,
      cloid: "0x05",
    });
    expect(late).toMatchObject({ status: "unfilled", message: /no recorded candle in the period/ });
    expect(port.iocsUnfilled).toBe(5);
    expect(await port.positions()).toEqual([]);
  });

  it("latency moves the fill to the candle the order reaches", async () => {
    const { port, at } = setup([history("ETH", 30)], { latencyMs: 90_000 });
    at(T0 + 10 * MIN);
    const r = await port.ioc({
      coin: "ETH",
      side: "sell",
      size: "1",
      slippage: 0.05,
      reduceOnly: false,
      cloid: "0x01",
    });
    // Arrives 10:01:30 → the candle opening at 10:02 (open 112), 10 bps lower.
    expect(r).toMatchObject({ status: "filled", price: "111.88" });
  });

  it("with latency, the IOC is booked when it executes, not when it is sent (time passes while it is out)", async () => {
    const { port, coins, at } = setup([history("ETH", 30)], { latencyMs: 90_000 });
    const eth = coins[0]!;
    let bookedAt = -1;
    const apply = eth.ledger.applyFill.bind(eth.ledger);
    eth.ledger.applyFill = (f) => {
      bookedAt = port.now();
      apply(f);
    };
    at(T0 + 10 * MIN);
    const r = await port.ioc({
      coin: "ETH",
      side: "sell",
      size: "1",
      slippage: 0.05,
      reduceOnly: false,
      cloid: "0x01",
    });
    expect(r).toMatchObject({ status: "filled", price: "111.88" });
    const [fill] = await port.fillsSince("ETH", 0);
    expect(fill?.time).toBe(T0 + 12 * MIN);
    expect(bookedAt).toBe(T0 + 12 * MIN);
    expect(port.now()).toBe(T0 + 12 * MIN);
  });

  it("fills at most the participation share of the candle's volume; the rest of the IOC lapses", async () => {
    const { port, at } = setup([history("ETH", 30)], { participation: 0.1 });
    at(T0 + 10 * MIN);
    const ioc = (cloid: `0x${string}`) =>
      port.ioc({ coin: "ETH", side: "buy", size: "5", slippage: 0.05, reduceOnly: false, cloid });
    // Volume 10: one lot of 1 for both orders in that candle together.
    expect(await ioc("0x01")).toMatchObject({ status: "filled", size: "1" });
    expect(await ioc("0x02")).toMatchObject({ status: "unfilled" });
  });

  it("charges funding on the position as it settles", async () => {
    const eth = history("ETH", 30, { funding: [{ t: T0 + 15 * MIN, rate: "0.001", premium: "0" }] });
    const { port, coins, at } = setup([eth]);
    at(T0 + 10 * MIN);
    await port.ioc({ coin: "ETH", side: "buy", size: "2", slippage: 0.05, reduceOnly: false, cloid: "0x01" });
    at(T0 + 16 * MIN);
    // A long pays 2 × 115 (the open of the candle it settles in) × 0.001.
    expect(coins[0]!.ledger.funding.toString()).toBe("-0.23");
    await expect(port.subscribeMids()).rejects.toThrow(/no price stream in a backtest/);
    expect(await port.walletPositions()).toBeNull();
  });
});

describe("loadUniverse", () => {
  it("says which coins are not held, and what is", async () => {
    const root = mkdtempSync(join(tmpdir(), "wolf-universe-"));
    try {
      await writeCandles({ root, network: "paper", coin: "ETH", interval: "1m" }, history("ETH", 5).candles);
      await expect(
        loadUniverse({
          root,
          network: "paper",
          interval: "1m",
          fromMs: T0,
          toMs: T0 + 5 * MIN,
          coins: ["DOGE"],
        }),
      ).rejects.toThrow(/^no 1m candles held for DOGE on paper under .* \(held: ETH\)$/);
      await expect(
        loadUniverse({
          root,
          network: "paper",
          interval: "1m",
          fromMs: T0 + 86_400_000,
          toMs: T0 + 2 * 86_400_000,
        }),
      ).rejects.toThrow(/^no 1m candles on paper from 2026-01-02/);
      const u = await loadUniverse({
        root,
        network: "paper",
        interval: "1m",
        fromMs: T0,
        toMs: T0 + 5 * MIN,
      });
      expect(u.coins.map((c) => [c.coin, c.candles.length])).toEqual([["ETH", 5]]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
