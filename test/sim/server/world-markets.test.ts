import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAINNET_META } from "../../../src/sim/venue/markets.ts";
import type { VenueEvent } from "../../../src/sim/venue.ts";
import { type SimWorld, startSimWorld } from "../../../src/sim/world.ts";

/** A fresh sim world looks like Hyperliquid's markets with a past: universe, history, flow, funding. */

const FROZEN = 1e-9;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = Date.UTC(2026, 10, 20, 12, 0, 0);

interface Candle {
  t: number;
  o: string;
  h: string;
  l: string;
  c: string;
  v: string;
  n: number;
}
interface Funding {
  fundingRate: string;
  time: number;
}
interface Ctx {
  dayNtlVlm: string;
  openInterest: string;
  markPx: string;
  prevDayPx: string;
}

let world: SimWorld;
const info = <T>(req: Record<string, unknown>): T => world.venue.info(req as { type: string }) as T;

/** Every funding record of `coin` since `from`, paging as a client must (500 per answer). */
function allFunding(coin: string, from: number): Funding[] {
  const out: Funding[] = [];
  let start = from;
  for (;;) {
    const page = info<Funding[]>({ type: "fundingHistory", coin, startTime: start });
    out.push(...page);
    if (page.length < 500) return out;
    start = page.at(-1)!.time + 1;
  }
}

beforeAll(async () => {
  // Every market has its past; only the ones these tests watch move after start (hours of sim time
  // over the whole universe would cost minutes of test time).
  world = await startSimWorld({
    seed: 1,
    speed: FROZEN,
    startMs: START,
    historyDays: 30,
    liveCoins: ["BTC", "ETH", "SOL", "HYPE", "xyz:SPCX"],
  });
});
afterAll(async () => {
  await world?.close();
});

describe("universe", () => {
  it("lists every main-dex perp of the recorded mainnet meta, with mainnet's asset ids, decimals, leverage and margin tables, plus the HIP-3 markets", () => {
    const meta = info<{
      universe: {
        name: string;
        szDecimals: number;
        maxLeverage: number;
        marginTableId: number;
        isDelisted?: boolean;
      }[];
      marginTables: [number, { marginTiers: { lowerBound: string; maxLeverage: number }[] }][];
    }>({ type: "meta" });
    expect(meta.universe.filter((u) => !u.isDelisted).length).toBeGreaterThanOrEqual(150);
    // Recorded mainnet meta (2025-11-11): asset id = universe index.
    const recorded: [string, number, number][] = [
      ["BTC", 0, 5],
      ["ETH", 1, 4],
      ["SOL", 5, 2],
      ["ARB", 11, 1],
      ["DOGE", 12, 0],
      ["XRP", 25, 0],
      ["TON", 66, 1],
      ["HYPE", 159, 2],
    ];
    for (const [name, asset, szDecimals] of recorded) {
      expect(
        meta.universe.findIndex((u) => u.name === name),
        name,
      ).toBe(asset);
      expect(meta.universe[asset]!.szDecimals, name).toBe(szDecimals);
    }
    const byName = new Map(meta.universe.map((u) => [u.name, u]));
    expect(byName.get("BTC")).toMatchObject({ szDecimals: 5, maxLeverage: 40, marginTableId: 56 });
    expect(byName.get("ETH")).toMatchObject({ szDecimals: 4, maxLeverage: 25, marginTableId: 55 });
    expect(byName.get("XRP")).toMatchObject({ szDecimals: 0, maxLeverage: 20, marginTableId: 53 });
    expect(byName.get("BNB")).toMatchObject({ szDecimals: 3, maxLeverage: 10, marginTableId: 51 });
    expect(byName.get("MATIC")).toMatchObject({ isDelisted: true });
    const tables = new Map(meta.marginTables);
    expect(tables.get(56)!.marginTiers).toEqual([
      { lowerBound: "0.0", maxLeverage: 40 },
      { lowerBound: "150000000.0", maxLeverage: 20 },
    ]);
    for (const u of meta.universe) expect(tables.has(u.marginTableId), u.name).toBe(true);
    expect(Object.keys(info({ type: "allMids", dex: "yex" })).sort()).toEqual([
      "yex:BTCSWP",
      "yex:US3M",
      "yex:VXX",
    ]);
    expect(Object.keys(info({ type: "allMids", dex: "xyz" }))).toEqual([
      "xyz:XYZ100",
      "xyz:TSLA",
      "xyz:NVDA",
      "xyz:SPCX",
    ]);
  });
});

describe("history at start", () => {
  it("serves 30 days of hourly candles and any minute of the past, both from one price path", () => {
    const hourly = info<Candle[]>({
      type: "candleSnapshot",
      req: { coin: "BTC", interval: "1h", startTime: START - 30 * DAY },
    });
    expect(hourly.length).toBeGreaterThanOrEqual(30 * 24);
    expect(hourly[0]!.t).toBe(START - 30 * DAY);
    for (let i = 1; i < hourly.length; i++) expect(hourly[i]!.t - hourly[i - 1]!.t).toBe(HOUR);
    // Every past hour traded (the hour starting now has only just opened).
    expect(hourly.filter((k) => k.t < START).every((k) => Number(k.v) > 0 && k.n > 0)).toBe(true);
    // The minutes of an hour 29 days back add up to that hour's candle.
    const hour = hourly[24]!;
    const minutes = info<Candle[]>({
      type: "candleSnapshot",
      req: { coin: "BTC", interval: "1m", startTime: hour.t, endTime: hour.t + HOUR - 1 },
    });
    expect(minutes).toHaveLength(60);
    expect(minutes[0]!.o).toBe(hour.o);
    expect(minutes.at(-1)!.c).toBe(hour.c);
    expect(Math.max(...minutes.map((k) => Number(k.h)))).toBe(Number(hour.h));
    expect(Math.min(...minutes.map((k) => Number(k.l)))).toBe(Number(hour.l));
    const v = minutes.reduce((s, k) => s + Number(k.v), 0);
    expect(v).toBeCloseTo(Number(hour.v), 4);
    // The path ends where the live market is.
    const mid = Number(info<Record<string, string>>({ type: "allMids" }).BTC);
    expect(Math.abs(Number(hourly.at(-1)!.c) / mid - 1)).toBeLessThan(0.005);
    for (const k of hourly) {
      expect(Number(k.l)).toBeLessThanOrEqual(Math.min(Number(k.o), Number(k.c)));
      expect(Number(k.h)).toBeGreaterThanOrEqual(Math.max(Number(k.o), Number(k.c)));
    }
  });

  it("has each listed market's recorded 24 h volume and open interest, give or take the day's luck", () => {
    const [meta, ctxs] = info<[{ universe: { name: string; isDelisted?: boolean }[] }, Ctx[]]>({
      type: "metaAndAssetCtxs",
    });
    const recorded = new Map(MAINNET_META.universe.map((u) => [u.name, u]));
    const usdOi = (c: Ctx) => Number(c.openInterest) * Number(c.markPx);
    meta.universe.forEach((u, i) => {
      const c = ctxs[i]!;
      const r = recorded.get(u.name)!;
      if (u.isDelisted) {
        expect(Number(c.dayNtlVlm), u.name).toBe(0);
        return;
      }
      const vol = Number(r.dayNtlVlm);
      const oi = Number(r.openInterest) * Number(r.markPx);
      expect(Number(c.dayNtlVlm), u.name).toBeGreaterThan(vol / 4);
      expect(Number(c.dayNtlVlm), u.name).toBeLessThan(vol * 4);
      expect(usdOi(c), u.name).toBeGreaterThan(oi / 4);
      expect(usdOi(c), u.name).toBeLessThan(oi * 4);
      expect(Number(c.prevDayPx), u.name).toBeGreaterThan(0);
    });
  });

  it("has a month of funding for every SWP reference coin, positive and negative, never stuck on one rate", () => {
    for (const coin of ["BTC", "HYPE", "ETH", "xyz:SPCX"]) {
      const rates = allFunding(coin, START - 31 * DAY).map((f) => Number(f.fundingRate));
      expect(rates.length, coin).toBeGreaterThanOrEqual(30 * 24);
      expect(Math.min(...rates), coin).toBeLessThan(0);
      expect(Math.max(...rates), coin).toBeGreaterThan(0);
      expect(new Set(rates).size, coin).toBeGreaterThan(24);
      // Within what Hyperliquid shows: well under the 4 %/h cap.
      expect(Math.max(...rates.map(Math.abs)), coin).toBeLessThan(0.002);
    }
  });

  it("opens with recent trades", () => {
    const trades = info<{ time: number }[]>({ type: "recentTrades", coin: "ETH" });
    expect(trades.length).toBeGreaterThan(10);
    expect(trades.at(-1)!.time).toBeLessThanOrEqual(START);
    expect(trades.at(-1)!.time).toBeGreaterThan(START - 10 * 60_000);
  });
});

describe("a market that trades", () => {
  it("background takers trade every market: trades, candles and volume move without any user", () => {
    const seen = new Map<string, number>();
    const off = world.venue.subscribe((e: VenueEvent) => {
      if (e.kind === "trades") seen.set(e.coin, (seen.get(e.coin) ?? 0) + e.trades.length);
    });
    const before = info<{ tid: number }[]>({ type: "recentTrades", coin: "BTC" }).at(-1)!.tid;
    world.advance(10 * 60_000);
    off();
    const after = info<{ tid: number; users: string[] }[]>({ type: "recentTrades", coin: "BTC" });
    expect(after.at(-1)!.tid).toBeGreaterThan(before);
    const majors = ["BTC", "ETH", "SOL", "HYPE"];
    for (const coin of majors) expect(seen.get(coin) ?? 0, coin).toBeGreaterThan(5);
    const minute = info<Candle[]>({
      type: "candleSnapshot",
      req: { coin: "BTC", interval: "1m", startTime: START + 60_000, endTime: START + 9 * 60_000 },
    });
    expect(minute.filter((k) => k.n > 0).length).toBeGreaterThan(4);
  });

  it("funding lives after start: HYPE, ETH and SPCX leave their baseline rate within a day", () => {
    const baseline: Record<string, number> = { HYPE: 0.0000125, ETH: 0.0000125, "xyz:SPCX": 0.00000625 };
    world.advance(DAY);
    for (const [coin, base] of Object.entries(baseline)) {
      const live = allFunding(coin, START + 1).map((f) => Number(f.fundingRate));
      expect(live.length, coin).toBeGreaterThanOrEqual(24);
      expect(
        live.some((r) => Math.abs(r - base) > 1e-7),
        coin,
      ).toBe(true);
    }
  });
});
