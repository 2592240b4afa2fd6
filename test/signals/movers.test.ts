import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Candle } from "../../src/signals/candles.ts";
import { appendHistory, moversHistoryPath, readHistory } from "../../src/signals/history.ts";
import {
  candleTargets,
  classify,
  fundingShift,
  isErratic,
  type MoversScan,
  oiDelta,
  priceBreakout,
  runMovers,
  volumeSurge,
  voteDirection,
} from "../../src/signals/movers.ts";
import { moversConfig } from "../../src/signals/movers-config.ts";
import { observeSmartMoney, type SmartMoneyConfig } from "../../src/signals/smart-money.ts";
import { candlesFrom, market, NOW } from "./fixtures.ts";

const cfg = moversConfig();

function scan(
  t: number,
  snaps: { asset: string; oi: number; usd?: number; funding?: number; mark?: number }[],
): MoversScan {
  return {
    scan_time_ms: t,
    signals: [],
    snapshots: snaps.map((s) => ({
      asset: s.asset,
      open_interest: s.oi,
      open_interest_usd: s.usd ?? s.oi * (s.mark ?? 100),
      volume_24h: 1e6,
      funding_rate: s.funding ?? 0.00001,
      mark_price: s.mark ?? 100,
    })),
    stats: {
      total_assets: 0,
      qualifying: 0,
      signals_detected: 0,
      undirected: 0,
      has_baseline: false,
      history_depth: 0,
      scan_duration_ms: 0,
    },
  };
}

describe("movers config", () => {
  it("defaults, sensitive preset, no clobbering by unset flags", () => {
    expect(cfg.oi_delta_immediate_pct).toBe(15);
    expect(cfg.oi_delta_breakout_pct).toBe(8);
    expect(cfg.volume_surge_ratio).toBe(3);
    expect(cfg.volume_surge_immediate).toBe(5);
    expect(cfg.volume_min_24h).toBe(500_000);
    const s = moversConfig("sensitive", { volume_min_24h: undefined });
    expect(s.oi_delta_breakout_pct).toBeLessThan(cfg.oi_delta_breakout_pct);
    expect(s.volume_min_24h).toBe(200_000);
    expect(() => moversConfig("zzz")).toThrow(/Unknown movers preset/);
  });
});

describe("detectors", () => {
  it("OI delta: ≥ 8 % over the windowed baseline fires; none/zero baseline never", () => {
    const h = [scan(NOW - 60_000, [{ asset: "ETH", oi: 1e8 }])];
    expect(oiDelta(cfg, "ETH", 1.1e8, h)).toMatchObject({ fired: true, delta_pct: expect.closeTo(10, 6) });
    expect(oiDelta(cfg, "ETH", 1.08e8, h).fired).toBe(true);
    expect(oiDelta(cfg, "ETH", 1.05e8, h).fired).toBe(false);
    expect(oiDelta(cfg, "SOL", 1e8, h)).toMatchObject({ fired: false, baseline: null });
    expect(oiDelta(cfg, "ETH", 1e8, [scan(NOW - 60_000, [{ asset: "ETH", oi: 0 }])]).fired).toBe(false);
  });

  it("the baseline is time-windowed: scans older than the window are ignored (§7.14)", () => {
    const hist = [
      scan(NOW - 3_600_000, [{ asset: "ETH", oi: 1 }]),
      scan(NOW - 1000, [{ asset: "ETH", oi: 2 }]),
    ];
    const r = runMovers(cfg, { markets: [market("ETH")], candles: new Map(), history: hist, nowMs: NOW });
    expect(r.stats.has_baseline).toBe(false); // only one scan inside the 6-minute window
  });

  it("volume surge in USD (v × close) against 24 h volume / 6; forming candle blended (§7.6, §7.7)", () => {
    const fourH = 14_400_000;
    const closed: Candle = {
      t: NOW - 2 * fourH,
      T: NOW - fourH - 1,
      o: 100,
      h: 100,
      l: 100,
      c: 100,
      v: 40_000,
    };
    // 24 h volume 6e6 → 1e6 per 4 h; the last closed 4 h traded 40 000 coins × $100 = $4e6 → ratio 4
    expect(volumeSurge(cfg, [closed], 6e6, NOW - 10)).toMatchObject({ fired: true, ratio: 4 });
    expect(volumeSurge(cfg, [{ ...closed, v: 10_000 }], 6e6, NOW - 10).fired).toBe(false);
    expect(volumeSurge(cfg, [], 6e6, NOW).fired).toBe(false);
    // a forming candle 10 minutes old with little volume does not read as "volume collapsed"
    const forming: Candle = {
      t: NOW - 600_000,
      T: NOW + fourH - 600_001,
      o: 100,
      h: 100,
      l: 100,
      c: 100,
      v: 1_000,
    };
    const prev: Candle = { ...closed, t: NOW - 600_000 - fourH, T: NOW - 600_001 };
    const r = volumeSurge(cfg, [prev, forming], 6e6, NOW);
    expect(r.ratio).toBeGreaterThan(3.5);
  });

  it("funding: flip, acceleration, small change, no history (hourly thresholds)", () => {
    expect(fundingShift(cfg, -0.001, 0.001)).toMatchObject({ fired: true, type: "flip" });
    expect(fundingShift(cfg, 0.003, 0.001)).toMatchObject({ fired: true, type: "acceleration" });
    expect(fundingShift(cfg, 0.0011, 0.001).fired).toBe(false);
    expect(fundingShift(cfg, 0.001, undefined).fired).toBe(false);
    expect(fundingShift(cfg, 0.001, 0).fired).toBe(false);
    // a tiny flip below the hourly threshold is not a flip; a tiny "acceleration" is noise (§7.12)
    expect(fundingShift(cfg, -0.00001, 0.00001).fired).toBe(false);
    expect(fundingShift(cfg, 0.000002, 0.000001).fired).toBe(false);
  });

  it("price breakout beyond the prior 23 bars by ≥ 1.5 %", () => {
    const flat = candlesFrom([...Array(23).fill(100), 105], { spread: 0.01 });
    expect(priceBreakout(cfg, flat, 105)).toMatchObject({ fired: true, direction: "up" });
    const down = priceBreakout(cfg, flat, 95);
    expect(down).toMatchObject({ fired: true, direction: "down" });
    expect(down.pct).toBeLessThan(0);
    expect(priceBreakout(cfg, candlesFrom(Array(24).fill(100), { spread: 0.01 }), 100.5).fired).toBe(false);
    expect(priceBreakout(cfg, candlesFrom(Array(23).fill(100)), 200).fired).toBe(false);
  });

  it("erratic: ≥ 5 rank reversals (by USD OI) over the last 10 scans", () => {
    const zig = Array.from({ length: 10 }, (_, i) =>
      scan(NOW - (10 - i) * 1000, [
        { asset: "A", oi: i % 2 ? 3 : 1 },
        { asset: "B", oi: 2 },
      ]),
    );
    expect(isErratic(cfg, "A", zig)).toBe(true);
    expect(isErratic(cfg, "A", zig.slice(0, 9))).toBe(false);
    const steady = zig.map((s) => ({
      ...s,
      snapshots: s.snapshots.map((x) => ({ ...x, open_interest_usd: x.asset === "A" ? 5 : 1 })),
    }));
    expect(isErratic(cfg, "A", steady)).toBe(false);
  });
});

describe("classification and direction", () => {
  const f = { oi: false, oiPct: 0, vol: false, volRatio: 0, funding: false, breakout: false };
  it("types in priority order; OI + volume below IMMEDIATE outranks volume alone (§7.12)", () => {
    expect(classify(cfg, { ...f, oi: true, oiPct: 15, vol: true, volRatio: 5 })).toBe("IMMEDIATE_MOVER");
    expect(classify(cfg, { ...f, oi: true, oiPct: 14.9, vol: true, volRatio: 5 })).toBe("OI_VOLUME_SURGE");
    expect(classify(cfg, { ...f, oi: true, oiPct: 20, vol: true, volRatio: 4.9 })).toBe("OI_VOLUME_SURGE");
    expect(classify(cfg, { ...f, vol: true, volRatio: 3 })).toBe("VOLUME_SURGE");
    expect(classify(cfg, { ...f, oi: true, oiPct: 9 })).toBe("OI_BREAKOUT");
    expect(classify(cfg, { ...f, breakout: true })).toBe("PRICE_BREAKOUT");
    expect(classify(cfg, { ...f, funding: true })).toBe("FUNDING_FLIP");
    expect(classify(cfg, f)).toBeNull();
    const w = cfg.signal_weights;
    expect(w.OI_VOLUME_SURGE).toBeGreaterThan(w.VOLUME_SURGE);
    expect([w.IMMEDIATE_MOVER, w.VOLUME_SURGE, w.OI_BREAKOUT, w.FUNDING_FLIP]).toEqual([100, 70, 60, 50]);
  });

  it("votes: funding sign, shift, breakout (double with volume), price move; ties give no direction", () => {
    const v = { funding: 0, fundingShift: null, breakout: null, volumeWithBreakout: false, priceMove: null };
    expect(voteDirection({ ...v, funding: 0.0001 })).toBe("LONG");
    expect(voteDirection({ ...v, funding: -0.0001 })).toBe("SHORT");
    expect(voteDirection({ ...v, breakout: "up" })).toBe("LONG");
    expect(voteDirection({ ...v, funding: 0.0001, breakout: "down", volumeWithBreakout: true })).toBe(
      "SHORT",
    );
    expect(voteDirection({ ...v, funding: 0.0001, priceMove: -2 })).toBeNull();
    expect(voteDirection(v)).toBeNull();
  });
});

describe("a movers scan", () => {
  const base = (t: number) => scan(t, [{ asset: "ETH", oi: 50_000, mark: 100 }]);

  it("first scans build the baseline; then OI +20 % and volume ×8 with rising price is IMMEDIATE LONG", () => {
    const empty = runMovers(cfg, { markets: [market("ETH")], candles: new Map(), history: [], nowMs: NOW });
    expect(empty.signals).toEqual([]);
    expect(empty.stats.has_baseline).toBe(false);
    const hist = [base(NOW - 120_000), base(NOW - 60_000)];
    const eth = market("ETH", {
      open_interest: 60_000,
      mark_price: 102,
      funding_rate: 0.00001,
      volume_24h: 6e6,
    });
    const fourH: Candle = {
      t: NOW - 14_400_000 * 2,
      T: NOW - 14_400_000 - 1,
      o: 100,
      h: 100,
      l: 100,
      c: 100,
      v: 80_000,
    };
    const r = runMovers(cfg, {
      markets: [eth],
      candles: new Map([["ETH", { "4h": [fourH] }]]),
      history: hist,
      nowMs: NOW,
    });
    expect(r.signals).toHaveLength(1);
    expect(r.signals[0]).toMatchObject({
      asset: "ETH",
      signal_type: "IMMEDIATE_MOVER",
      direction: "LONG",
      confidence: 100,
    });
    expect(r.signals[0]!.oi_delta_pct).toBe(20);
    // without candles the same OI jump is only an OI_BREAKOUT
    const noCandles = runMovers(cfg, { markets: [eth], candles: new Map(), history: hist, nowMs: NOW });
    expect(noCandles.signals[0]).toMatchObject({ signal_type: "OI_BREAKOUT", oi_delta_pct: 20 });
  });

  it("erratic signals are kept at half confidence", () => {
    const zig = Array.from({ length: 10 }, (_, i) =>
      scan(NOW - (10 - i) * 1000, [
        { asset: "ETH", oi: 50_000, usd: i % 2 ? 3 : 1 },
        { asset: "B", oi: 1, usd: 2 },
      ]),
    );
    const r = runMovers(cfg, {
      markets: [market("ETH", { open_interest: 60_000, mark_price: 101 })],
      candles: new Map(),
      history: zig,
      nowMs: NOW,
    });
    expect(r.signals[0]).toMatchObject({ is_erratic: true, confidence: 30 });
  });

  it("below the volume minimum nothing qualifies; snapshots keep only qualifying assets (§7.16)", () => {
    const r = runMovers(cfg, {
      markets: [market("X", { volume_24h: 1000 })],
      candles: new Map(),
      history: [],
      nowMs: NOW,
    });
    expect(r.stats.qualifying).toBe(0);
    expect(r.snapshots).toEqual([]);
  });

  it("candles go to the largest qualifying assets first, capped (§7.15)", () => {
    const ms = [
      market("A", { volume_24h: 1e6 }),
      market("B", { volume_24h: 9e6 }),
      market("C", { volume_24h: 5e6 }),
    ];
    expect(candleTargets({ ...cfg, max_candle_assets: 2 }, ms)).toEqual(["B", "C"]);
  });
});

describe("scan history files", () => {
  it("appends, caps, and writes at the contract path; a corrupt file is set aside, not silently reset", () => {
    const dir = mkdtempSync(join(tmpdir(), "movers-"));
    const p = moversHistoryPath(dir);
    expect(p).toBe(join(dir, "movers", "scan-history.json"));
    let entries: number[] = [];
    for (let i = 0; i < 35; i++)
      entries = appendHistory(p, readHistory<number>(p).entries, i, cfg.scan_history_size);
    expect(JSON.parse(readFileSync(p, "utf8"))).toHaveLength(30);
    expect(entries[0]).toBe(5);
    writeFileSync(p, "{not json");
    const r = readHistory<number>(p);
    expect(r.entries).toEqual([]);
    expect(r.quarantined).toMatch(/corrupt/);
    expect(readFileSync(r.quarantined!, "utf8")).toBe("{not json");
  });
});

describe("smart money", () => {
  const smc: SmartMoneyConfig = { min_position_usd: 10_000, conviction_threshold: 2 };
  const eth = (szi: number) => [{ coin: "ETH", szi, entry_px: 2500 }];

  it("the first poll only seeds: existing whale positions are not 'new' (§7.21)", () => {
    const first = observeSmartMoney(smc, {}, { "0xa": eth(10) }, {});
    expect(first.signals).toEqual([]);
    const again = observeSmartMoney(smc, first.state, { "0xa": eth(10) }, {});
    expect(again.signals).toEqual([]);
  });

  it("new, flipped and grown (> 20 %) positions signal; small ones and small growth do not", () => {
    const seeded = observeSmartMoney(smc, {}, { "0xa": [] }, {}).state;
    const opened = observeSmartMoney(smc, seeded, { "0xa": eth(10) }, {});
    expect(opened.signals).toEqual([
      {
        asset: "ETH",
        signal_type: "SMART_MONEY",
        direction: "LONG",
        confidence: 72.5,
        source_addresses: ["0xa"],
        notional_usd: 25_000,
      },
    ]);
    expect(
      observeSmartMoney(smc, seeded, { "0xa": [{ coin: "DOGE", szi: 100, entry_px: 0.05 }] }, {}).signals,
    ).toEqual([]);
    expect(observeSmartMoney(smc, opened.state, { "0xa": eth(-10) }, {}).signals[0]?.direction).toBe("SHORT");
    const sol = (szi: number) => [{ coin: "SOL", szi, entry_px: 100 }];
    const s500 = observeSmartMoney(smc, seeded, { "0xa": sol(500) }, {}).state;
    expect(observeSmartMoney(smc, s500, { "0xa": sol(700) }, {}).signals).toHaveLength(1);
    expect(observeSmartMoney(smc, s500, { "0xa": sol(550) }, {}).signals).toHaveLength(0);
  });

  it("two wallets make HIGH_CONVICTION; a failed poll keeps the snapshot instead of re-emitting", () => {
    const seeded = observeSmartMoney(smc, {}, { "0xa": [], "0xb": [] }, {}).state;
    const two = observeSmartMoney(smc, seeded, { "0xa": eth(9), "0xb": eth(9) }, {});
    expect(two.signals[0]).toMatchObject({ signal_type: "HIGH_CONVICTION", confidence: 84.5 });
    expect(two.signals[0]!.source_addresses).toHaveLength(2);
    const failed = observeSmartMoney(smc, two.state, { "0xa": null, "0xb": eth(9) }, {});
    expect(failed.state["0xa"]).toEqual(two.state["0xa"]);
    expect(observeSmartMoney(smc, failed.state, { "0xa": eth(9), "0xb": eth(9) }, {}).signals).toEqual([]);
  });

  it("notional uses the mark when known", () => {
    const seeded = observeSmartMoney(smc, {}, { "0xa": [] }, {}).state;
    // 10 ETH entered at 2500 is $25k, but at a mark of 900 it is $9k: below the minimum
    expect(observeSmartMoney(smc, seeded, { "0xa": eth(10) }, { ETH: 900 }).signals).toEqual([]);
  });
});
