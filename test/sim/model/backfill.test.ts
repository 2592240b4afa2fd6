import { describe, expect, it } from "vitest";
import { allMinutes, backfill } from "../../../src/sim/model/backfill.ts";
import { marketParams } from "../../../src/sim/model/market-params.ts";
import {
  activity,
  initialPriceState,
  type PriceState,
  stepPrice,
} from "../../../src/sim/model/price-process.ts";
import { createRng } from "../../../src/sim/model/prng.ts";

const END = Date.UTC(2026, 10, 20, 12, 0, 30);
const markets = [
  { coin: "BTC", szDecimals: 5, endPx: 97_000, params: marketParams("BTC", 3) },
  { coin: "kPEPE", szDecimals: 0, endPx: 0.012, params: marketParams("kPEPE", 3) },
];

describe("backfill", () => {
  it("makes a day at a time on demand, the same minutes however often they are remade", () => {
    const many = Array.from({ length: 45 }, (_, i) => ({
      coin: `C${i}`,
      szDecimals: 1,
      endPx: 10,
      params: marketParams(`C${i}`, 3),
    }));
    const past = backfill(many, { seed: 3, endMs: END, days: 4 });
    const first = Array.from(allMinutes(past[0]!.candles).c);
    expect(first).toHaveLength(4 * 1440);
    expect(Array.from(past[0]!.candles.day(3).c)).toEqual(first.slice(-1440));
    // Touch every other market's whole past: the first one's days are let go, then made again.
    for (const h of past.slice(1)) expect(allMinutes(h.candles).c.length).toBe(4 * 1440);
    expect(Array.from(allMinutes(past[0]!.candles).c)).toEqual(first);
    // One market made alone (as a world makes a market first looked at) has the same past.
    const [alone] = backfill([many[0]!], { seed: 3, endMs: END, days: 4 });
    expect(Array.from(alone!.candles.day(1).c)).toEqual(first.slice(1440, 2880));
    expect(alone!.trades).toEqual(past[0]!.trades);
  });

  it("is seeded, ends at the live price, and keeps every candle on the exchange's grid", () => {
    const a = backfill(markets, { seed: 3, endMs: END, days: 30 });
    const b = backfill(markets, { seed: 3, endMs: END, days: 30 });
    const c = backfill(markets, { seed: 4, endMs: END, days: 30 });
    expect(allMinutes(b[0]!.candles).c).toEqual(allMinutes(a[0]!.candles).c);
    expect(allMinutes(c[0]!.candles).c).not.toEqual(allMinutes(a[0]!.candles).c);
    for (const [i, past] of a.entries()) {
      const m = markets[i]!;
      const h = { ...allMinutes(past.candles), end: past.end, premiums: past.premiums, trades: past.trades };
      expect(h.c.length).toBe(30 * 1440);
      expect(h.startMs + h.c.length * 60_000).toBe(Date.UTC(2026, 10, 20, 12, 0, 0));
      const scale = 10 ** (6 - m.szDecimals);
      expect(h.c.at(-1)! / scale).toBeCloseTo(m.endPx, 6 - m.szDecimals);
      expect(h.end.px).toBe(m.endPx);
      for (let k = 0; k < h.c.length; k += 97) {
        expect(h.l[k]!).toBeLessThanOrEqual(Math.min(h.o[k]!, h.c[k]!));
        expect(h.h[k]!).toBeGreaterThanOrEqual(Math.max(h.o[k]!, h.c[k]!));
        expect(h.v[k]!).toBeGreaterThan(0);
        for (const px of [h.o[k]!, h.h[k]!, h.l[k]!, h.c[k]!]) {
          // At most 5 significant figures, or a whole number (always a valid price).
          const whole = px % scale === 0;
          expect(whole || String(px).replace(/0+$/, "").length <= 5, `${m.coin} ${px}`).toBe(true);
        }
      }
      expect(h.premiums.length).toBeGreaterThanOrEqual(30 * 24 - 1);
      expect(h.trades.length).toBe(100);
    }
  });
});

describe("hard days", () => {
  it("the process has seeded liquidation cascades: a burst of volume, a one-way slide and open interest flushed out", () => {
    const p = marketParams("SOL", 1);
    const rng = createRng(9);
    let s: PriceState = initialPriceState(180, p.openInterestUsd / 180);
    let cascades = 0;
    let biggestSlide = 0;
    let oiDrop = 0;
    let startPx = 0;
    let startOi = 0;
    for (let i = 0; i < 120 * 288; i++) {
      const before = s;
      s = stepPrice(s, p, 300_000, createRng(i).normal(), rng);
      if (before.cascadeMs === 0 && s.cascadeMs > 0) {
        cascades++;
        startPx = s.px;
        startOi = s.oi;
        expect(activity(s)).toBeGreaterThan(activity(before));
      }
      if (before.cascadeMs > 0 && s.cascadeMs === 0) {
        biggestSlide = Math.max(biggestSlide, Math.abs(Math.log(s.px / startPx)));
        oiDrop = Math.max(oiDrop, 1 - s.oi / startOi);
      }
    }
    // About one every fifteen days per market.
    expect(cascades).toBeGreaterThan(2);
    expect(cascades).toBeLessThan(30);
    expect(biggestSlide).toBeGreaterThan(0.03);
    expect(oiDrop).toBeGreaterThan(0.05);
  });

  it("the process has gaps: moves of several percent within minutes, rarely", () => {
    const [past] = backfill([{ coin: "ETH", szDecimals: 4, endPx: 3400, params: marketParams("ETH", 5) }], {
      seed: 5,
      endMs: END,
      days: 30,
    });
    const h = allMinutes(past!.candles);
    let big = 0;
    for (let k = 5; k < h.c.length; k += 5) if (Math.abs(Math.log(h.c[k]! / h.c[k - 5]!)) > 0.03) big++;
    expect(big).toBeGreaterThan(0);
    expect(big).toBeLessThan(200);
  });
});
