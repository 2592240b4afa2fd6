import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { houseLadder } from "../../../src/sim/model/house-quotes.ts";
import { marketParams } from "../../../src/sim/model/market-params.ts";
import { tickExponent } from "../../../src/sim/model/price-grid.ts";
import { type BookSnapshot, quantile, spreadBps } from "../../../src/sim/model/realism-stats.ts";
import type { Address } from "../../../src/sim/venue.ts";
import { type SimWorld, startSimWorld } from "../../../src/sim/world.ts";

const SWEEPER: Address = "0x5eed000000000000000000000000000000000025";
const BTC = 0;

describe("the house ladder's spread (pure)", () => {
  it("majors quote one tick wide; other classes no wider than the published thin-market bound", () => {
    const cases = [
      { coin: "BTC", szDecimals: 5, px: [61_234.5, 97_000, 105_321.7] },
      { coin: "ETH", szDecimals: 4, px: [1_999.97, 3_412.3] },
      { coin: "SOL", szDecimals: 2, px: [99.995, 161.234] },
      { coin: "DOGE", szDecimals: 0, px: [0.098765, 0.17] },
      { coin: "kPEPE", szDecimals: 0, px: [0.0061234] },
    ];
    for (const c of cases) {
      const params = marketParams(c.coin, 1);
      for (const oraclePx of c.px) {
        const q = houseLadder({
          oraclePx,
          premium: 0,
          szDecimals: c.szDecimals,
          params,
          impactNotionalUsd: 20_000,
          premiumStyle: "main",
        });
        const bid = Number(q.find((x) => x.isBuy)!.px);
        const ask = Number(q.find((x) => !x.isBuy)!.px);
        const bps = ((ask - bid) / ((ask + bid) / 2)) * 1e4;
        const tick = 10 ** tickExponent(bid, c.szDecimals);
        expect(ask, `${c.coin} at ${oraclePx}`).toBeGreaterThan(bid);
        if (params.halfSpreadBps === 0) expect((ask - bid) / tick, `${c.coin} one tick`).toBeCloseTo(1, 6);
        // At most the published thin-market spread (5 bps) plus a tick of rounding on each side.
        else expect(bps).toBeLessThanOrEqual(5 + ((2 * tick) / bid) * 1e4 + 1e-9);
      }
    }
  });
});

describe("the house book in a seeded running world", () => {
  let world: SimWorld;
  const book = () => world.venue.info({ type: "l2Book", coin: "BTC" }) as BookSnapshot;
  const askNotional = () => book().levels[1].reduce((a, l) => a + Number(l.px) * Number(l.sz), 0);
  beforeAll(async () => {
    world = await startSimWorld({ seed: 5, speed: 1e-9, historyDays: 0, liveCoins: ["BTC"], limits: false });
  });
  afterAll(async () => {
    await world.close();
  });

  it("keeps BTC's spread at one tick through the background flow (seed 5, 3 minutes)", () => {
    const spreads: number[] = [];
    for (let i = 0; i < 25; i++) {
      world.advance(7_000);
      spreads.push(spreadBps(book())!);
    }
    // One $1 tick at BTC's price is about 0.1 bps; the touch never opens up to a second level.
    expect(quantile(spreads, 0.5)).toBeLessThan(0.15);
    expect(Math.max(...spreads)).toBeLessThan(0.3);
  });

  it("a $370k sweep leaves a hole that refills with a 20 s half-life, not at the next requote", () => {
    world.venue.deposit(SWEEPER, "2000000");
    world.advance(1_000);
    const full = askNotional();
    const mid = Number((world.venue.info({ type: "allMids" }) as Record<string, string>).BTC);
    const res = world.venue.exchange(
      {
        type: "order",
        orders: [
          {
            a: BTC,
            b: true,
            p: String(Math.round(mid * 1.01)),
            s: (370_000 / mid).toFixed(5),
            r: false,
            t: { limit: { tif: "Ioc" } },
          },
        ],
        grouping: "na",
      },
      SWEEPER,
      1,
    );
    expect(JSON.stringify(res)).toContain("filled");
    const missing = () => (full - askNotional()) / 370_000;
    world.advance(1_000);
    expect(missing()).toBeGreaterThan(0.8);
    for (let s = 1; s < 20; s++) world.advance(1_000);
    // After 20 s about half the hole is back (refills go in steps of 5 % of a level).
    expect(missing()).toBeGreaterThan(0.35);
    expect(missing()).toBeLessThan(0.65);
    for (let s = 0; s < 40; s++) world.advance(1_000);
    expect(missing()).toBeLessThan(0.25);
  });

  it("after a price gap the book is rebuilt around the new mark before anything can fill against it", () => {
    const mark = () => {
      const ctx = world.venue.info({ type: "metaAndAssetCtxs" }) as [unknown, { markPx: string }[]];
      return Number(ctx[1][BTC]!.markPx);
    };
    const before = mark();
    world.setPrice("BTC", String(Math.round(before * 0.95)));
    const b = book();
    const bid = Number(b.levels[0][0]!.px);
    const ask = Number(b.levels[1][0]!.px);
    const after = mark();
    expect(after).toBeLessThan(before * 0.96);
    // The touch straddles the new mark within a few bps: a stop or a liquidation sells into this book.
    expect(Math.abs((bid + ask) / 2 / after - 1) * 1e4).toBeLessThan(5);
    expect(bid).toBeLessThan(before * 0.96);
  });
});
