import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadHistory } from "../../../src/backtest/load-history.ts";
import { runBacktest } from "../../../src/backtest/run-backtest.ts";
import { runStrategy } from "../../../src/engine/runner.ts";
import { RateBudget } from "../../../src/exchange/budget.ts";
import { HlClient } from "../../../src/exchange/client.ts";
import { type SimWorld, startSimWorld } from "../../../src/sim/world.ts";
import { writeSimStore } from "../../backtest/write-sim-store.ts";

/**
 * One engine: the same strategy on the same recorded minutes, once through `hl backtest`'s core
 * (replay venue, virtual clock) and once on paper — the real engine with HlMarketData/HlGateway over
 * HTTP — against a sim world replaying those minutes, its clock stepped one tick per engine sleep.
 * Both must send the same orders in the same order, at the same market times, prices and sizes.
 */
const END = Date.UTC(2026, 2, 3, 12, 0);
const MIN = 60_000;
const FROM = END - 100 * MIN;
const TO = END;

interface SentOrder {
  atMs: number;
  side: "buy" | "sell";
  price: string;
  size: string;
  tif: string;
  reduceOnly: boolean;
}

describe("backtest ↔ paper parity on a replayed recording", () => {
  let root: string;
  const worlds: SimWorld[] = [];
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "hl-parity-store-"));
    await writeSimStore(root, { endMs: END, days: 1, network: "paper" });
  });
  afterAll(async () => {
    await Promise.all(worlds.map((w) => w.close()));
  });

  // A signal strategy on the mid alone, and a candle-driven one (closed 1-minute candles, touch).
  it.each([
    ["mean_reversion", { window: 10, threshold_bps: 4, size: 0.5, max_position: 1.5 }, 6],
    ["momentum_breakout", { lookback: 10, breakout_threshold_bps: 2, volume_surge_mult: 1.2, size: 0.5 }, 4],
  ] as const)(
    "%s: the same orders, in the same sequence, at the same times, prices and sizes",
    async (strategy, params, least) => {
      // Needs the exchange's per-IP weight limit off: a replay read back as fast as it can be spend more than
      // one IP's 1200 a minute. The per-address limit stays on.
      const world = await startSimWorld({
        ipWeightLimit: false,
        speed: 1e-9,
        replay: { root, network: "paper", coins: ["ETH"], fromMs: FROM, toMs: TO },
      });
      worlds.push(world);
      const history = await loadHistory({
        root,
        network: "paper",
        coin: "ETH",
        interval: "1m",
        fromMs: FROM,
        toMs: TO,
      });
      const backtested: SentOrder[] = [];
      const bt = await runBacktest({
        strategy,
        instrument: "ETH-PERP",
        params,
        fromMs: FROM,
        toMs: TO,
        history,
        szDecimals: 4,
        // The sim fills an IOC at its quote: compared without a slippage stress.
        slippageBps: 0,
        onPlace: (orders, atMs) => {
          for (const o of orders)
            backtested.push({
              atMs,
              side: o.side,
              price: o.price,
              size: o.size,
              tif: o.tif,
              reduceOnly: o.reduceOnly,
            });
        },
      });

      const dir = mkdtempSync(join(tmpdir(), "hl-parity-paper-"));
      const client = await HlClient.create({
        network: "paper",
        apiUrl: world.url,
        env: { DATA_DIR: dir },
        budget: new RateBudget({ weightPerMinute: 1e9 }),
      });
      const paper = await runStrategy({
        strategy,
        instrument: "ETH-PERP",
        tickSeconds: 60,
        maxTicks: bt.run.ticks,
        mock: true,
        dryRun: false,
        resume: false,
        dataDir: join(dir, "cli"),
        params,
        client,
        log: () => {},
        sleep: async (ms) => world.advance(ms),
      });
      expect(paper.ticks).toBe(bt.run.ticks);

      type Historical = {
        order: {
          oid: number;
          side: "B" | "A";
          limitPx: string;
          origSz: string;
          timestamp: number;
          tif: string;
          reduceOnly: boolean;
        };
      };
      const placed = (world.venue.info({ type: "historicalOrders", user: client.address! }) as Historical[])
        .map((h) => h.order)
        .sort((a, b) => a.oid - b.oid)
        .map(
          (o): SentOrder => ({
            atMs: o.timestamp,
            side: o.side === "B" ? "buy" : "sell",
            price: o.limitPx,
            size: o.origSz,
            tif: o.tif,
            reduceOnly: o.reduceOnly,
          }),
        );
      // Enough trading to mean something: entries both ways.
      expect(backtested.length).toBeGreaterThanOrEqual(least);
      expect(new Set(backtested.map((o) => o.side)).size).toBe(2);
      expect(placed).toEqual(backtested);
      // Each IOC takes the touch one tick from the recorded close: the sim's house quote there, the
      // backtest's next open capped at the limit. The same fills, at the same times and prices.
      type WireFill = { px: string; sz: string; side: "B" | "A"; time: number; tid: number };
      // An order sent at the recording's last minute has no later minute in the backtest to fill
      // against, while the replaying world still quotes there: fills are compared up to that minute.
      const paperFills = (world.venue.info({ type: "userFills", user: client.address! }) as WireFill[])
        .filter((f) => f.time < TO)
        .sort((a, b) => a.tid - b.tid)
        .map((f) => [f.time, f.side === "B" ? "buy" : "sell", f.px, f.sz]);
      const btFills = (await bt.venue.fills("ETH-PERP", 0)).map((f) => [f.timeMs, f.side, f.price, f.size]);
      expect(btFills.length).toBeGreaterThan(0);
      expect(paperFills).toEqual(btFills);
    },
    60_000,
  );
});
