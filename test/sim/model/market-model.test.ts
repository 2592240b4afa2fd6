import { describe, expect, it } from "vitest";
import { houseLadder } from "../../../src/sim/model/house-quotes.ts";
import { MarketModel, type ModelMarket } from "../../../src/sim/model/market-model.ts";
import { marketParams } from "../../../src/sim/model/market-params.ts";
import { createRng } from "../../../src/sim/model/prng.ts";

const MARKETS: ModelMarket[] = [
  { coin: "BTC", szDecimals: 5, startPx: 97000, impactNotionalUsd: 20000 },
  { coin: "ETH", szDecimals: 4, startPx: 3400, impactNotionalUsd: 20000 },
  { coin: "DOGE", szDecimals: 0, startPx: 0.17, impactNotionalUsd: 6000 },
];
const START = 1_800_000_000_000;
const HOUR = 3_600_000;

function path(seed: number, coin: string, hours: number): number[] {
  const m = new MarketModel(MARKETS, { seed, startMs: START });
  const out: number[] = [];
  for (let h = 1; h <= hours; h++) {
    m.advanceTo(START + h * HOUR);
    out.push(m.price(coin)!.px);
  }
  return out;
}

describe("market model", () => {
  it("replays the same path for the same seed, and a different one for another seed", () => {
    expect(path(7, "ETH", 6)).toEqual(path(7, "ETH", 6));
    expect(path(7, "ETH", 6)).not.toEqual(path(8, "ETH", 6));
  });

  it("does not depend on how the time is chopped up", () => {
    const a = new MarketModel(MARKETS, { seed: 3, startMs: START });
    const b = new MarketModel(MARKETS, { seed: 3, startMs: START });
    a.advanceTo(START + HOUR);
    for (let t = START; t <= START + HOUR; t += 777) b.advanceTo(t);
    b.advanceTo(START + HOUR);
    expect(b.price("BTC")).toEqual(a.price("BTC"));
  });

  it("keeps a market's path when another market is added", () => {
    const solo = new MarketModel([MARKETS[1]!], { seed: 5, startMs: START });
    const all = new MarketModel(MARKETS, { seed: 5, startMs: START });
    solo.advanceTo(START + HOUR);
    all.advanceTo(START + HOUR);
    expect(all.price("ETH")).toEqual(solo.price("ETH"));
  });

  it("moves prices by plausible amounts and correlates alts with BTC", () => {
    const m = new MarketModel(MARKETS, { seed: 11, startMs: START });
    const btc: number[] = [];
    const eth: number[] = [];
    let prevB = 97000;
    let prevE = 3400;
    for (let h = 1; h <= 24 * 3; h++) {
      m.advanceTo(START + h * HOUR);
      const b = m.price("BTC")!.px;
      const e = m.price("ETH")!.px;
      btc.push(Math.log(b / prevB));
      eth.push(Math.log(e / prevE));
      prevB = b;
      prevE = e;
    }
    const corr = correlation(btc, eth);
    expect(corr).toBeGreaterThan(0.5);
    expect(prevB).toBeGreaterThan(97000 * 0.5);
    expect(prevB).toBeLessThan(97000 * 2);
  });

  it("a scenario makes a strong mover", () => {
    const base = new MarketModel(MARKETS, { seed: 2, startMs: START });
    const mover = new MarketModel(MARKETS, { seed: 2, startMs: START });
    mover.addScenario({ coin: "DOGE", driftPerHour: 0.03, untilMs: START + 4 * HOUR });
    base.advanceTo(START + 4 * HOUR);
    mover.advanceTo(START + 4 * HOUR);
    const ratio = mover.price("DOGE")!.px / base.price("DOGE")!.px;
    expect(ratio).toBeGreaterThan(1.1);
    expect(mover.price("BTC")).toEqual(base.price("BTC"));
  });

  it("queues taker flow", () => {
    const m = new MarketModel(MARKETS, { seed: 1, startMs: START });
    m.advanceTo(START + 10 * 60_000);
    const takers = m.drainTakers();
    expect(takers.length).toBeGreaterThan(10);
    expect(m.drainTakers()).toEqual([]);
  });
});

describe("house ladder", () => {
  it("is two-sided (20 levels a side, as l2Book shows), ordered, uncrossed and deep enough for the impact notional", () => {
    for (const premium of [0, 0.0004, -0.0004]) {
      const q = houseLadder({
        oraclePx: 97000,
        premium,
        szDecimals: 5,
        params: marketParams("BTC", 1),
        impactNotionalUsd: 20000,
        premiumStyle: "main",
      });
      const bids = q.filter((x) => x.isBuy).map((x) => Number(x.px));
      const asks = q.filter((x) => !x.isBuy).map((x) => Number(x.px));
      expect(bids.length).toBe(20);
      expect(asks.length).toBe(20);
      expect(Math.max(...bids)).toBeLessThan(Math.min(...asks));
      expect([...bids].sort((a, b) => b - a)).toEqual(bids);
      expect(new Set(bids).size).toBe(bids.length);
      const bestBidNtl = Number(q[0]!.px) * Number(q[0]!.sz);
      expect(bestBidNtl).toBeGreaterThan(20000);
      const mid = (Math.max(...bids) + Math.min(...asks)) / 2;
      if (premium > 0) expect(Math.max(...bids)).toBeGreaterThan(97000);
      if (premium < 0) expect(Math.min(...asks)).toBeLessThan(97000);
      if (premium === 0) expect(Math.abs(mid / 97000 - 1)).toBeLessThan(0.0002);
    }
  });

  it("works for low-priced coins on a coarse grid", () => {
    const q = houseLadder({
      oraclePx: 0.17,
      premium: 0,
      szDecimals: 0,
      params: marketParams("DOGE", 1),
      impactNotionalUsd: 6000,
      premiumStyle: "main",
    });
    expect(q.filter((x) => x.isBuy).length).toBeGreaterThan(4);
    expect(q.every((x) => Number(x.sz) * Number(x.px) >= 10)).toBe(true);
  });
});

describe("prng", () => {
  it("is deterministic and roughly uniform / normal", () => {
    const a = createRng(42);
    const b = createRng(42);
    const xs = Array.from({ length: 5000 }, () => a.next());
    expect(xs.slice(0, 10)).toEqual(Array.from({ length: 10 }, () => b.next()));
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.02);
    const ns = Array.from({ length: 5000 }, () => a.normal());
    const nm = ns.reduce((s, x) => s + x, 0) / ns.length;
    const nv = ns.reduce((s, x) => s + (x - nm) ** 2, 0) / ns.length;
    expect(Math.abs(nm)).toBeLessThan(0.05);
    expect(Math.abs(nv - 1)).toBeLessThan(0.08);
  });
});

function correlation(a: number[], b: number[]): number {
  const n = a.length;
  const ma = a.reduce((s, x) => s + x, 0) / n;
  const mb = b.reduce((s, x) => s + x, 0) / n;
  let cov = 0;
  let va = 0;
  let vb = 0;
  for (let i = 0; i < n; i++) {
    cov += (a[i]! - ma) * (b[i]! - mb);
    va += (a[i]! - ma) ** 2;
    vb += (b[i]! - mb) ** 2;
  }
  return cov / Math.sqrt(va * vb);
}
