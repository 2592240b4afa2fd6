import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CandleCache } from "../../src/signals/candle-cache.ts";
import type { Candle, CandleInterval } from "../../src/signals/candles.ts";
import { moversConfig } from "../../src/signals/movers-config.ts";
import { moversOnce, scanOnce } from "../../src/signals/run.ts";
import { scannerConfig } from "../../src/signals/scanner-config.ts";
import { type MarketDataSource, mapLimit } from "../../src/signals/source.ts";
import { bullish, market, NOW } from "./fixtures.ts";

class Source implements MarketDataSource {
  calls: string[] = [];
  failing = new Set<string>();
  now() {
    return NOW;
  }
  async markets() {
    return [
      market("ETH", { volume_24h: 80e6, open_interest: 200_000, mark_price: 110 }),
      market("DUST", { volume_24h: 10 }),
    ];
  }
  async candles(coin: string, interval: CandleInterval): Promise<Candle[]> {
    this.calls.push(`${coin}:${interval}`);
    if (this.failing.has(coin)) throw new Error("boom");
    return coin === "ETH" ? bullish()[interval] : [];
  }
}

describe("scanner and movers passes with I/O", () => {
  it("the scanner fetches per-asset 1h (its 4h bars rolled up from them) and 15m candles and finds the opportunity (§7.1); history is written", async () => {
    const src = new Source();
    const dir = mkdtempSync(join(tmpdir(), "scan-"));
    const cache = new CandleCache(src);
    const { result } = await scanOnce(src, cache, scannerConfig(), dir);
    expect(src.calls).toEqual(["BTC:1h", "ETH:1h", "ETH:15m"]);
    expect(src.calls).not.toContain("DUST:1h");
    expect(result.opportunities[0]?.asset).toBe("ETH");
    const saved = JSON.parse(readFileSync(join(dir, "scanner", "scan-history.json"), "utf8"));
    expect(saved).toHaveLength(1);
    // a second pass inside the cache window does not refetch
    const before = src.calls.length;
    await scanOnce(src, cache, scannerConfig(), dir);
    expect(src.calls.length).toBe(before);
  });

  it("candle failures are counted, not hidden (§7.24)", async () => {
    const src = new Source();
    src.failing.add("ETH");
    const r = await scanOnce(
      src,
      new CandleCache(src),
      scannerConfig(),
      mkdtempSync(join(tmpdir(), "scan-")),
    );
    expect(r.candle_failures).toBe(2);
    expect(r.result.stats.skipped_no_candles).toBe(1);
  });

  it("movers pass writes compact history at $DATA_DIR/movers/scan-history.json", async () => {
    const src = new Source();
    const dir = mkdtempSync(join(tmpdir(), "mov-"));
    const m = await moversOnce(src, new CandleCache(src), moversConfig(), dir);
    expect(m.stats.qualifying).toBe(1);
    const saved = JSON.parse(readFileSync(join(dir, "movers", "scan-history.json"), "utf8"));
    expect(saved[0].snapshots.map((s: { asset: string }) => s.asset)).toEqual(["ETH"]);
  });

  it("a movers pass reads no candle until its history holds a baseline (no detector runs before)", async () => {
    const src = new Source();
    const dir = mkdtempSync(join(tmpdir(), "mov-"));
    let clock = NOW;
    src.now = () => clock;
    const cache = new CandleCache(src);
    const first = await moversOnce(src, cache, moversConfig(), dir);
    clock += 60_000;
    const second = await moversOnce(src, cache, moversConfig(), dir);
    expect(src.calls).toEqual([]);
    expect([first.stats.has_baseline, second.stats.has_baseline]).toEqual([false, false]);
    clock += 60_000;
    const third = await moversOnce(src, cache, moversConfig(), dir);
    expect(third.stats.has_baseline).toBe(true);
    expect(src.calls).toEqual(["ETH:4h", "ETH:1h"]);
  });

  it("mapLimit keeps order and never exceeds the limit", async () => {
    let inFlight = 0;
    let peak = 0;
    const out = await mapLimit([1, 2, 3, 4, 5, 6, 7], 3, async (x) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      return x * 2;
    });
    expect(out).toEqual([2, 4, 6, 8, 10, 12, 14]);
    expect(peak).toBe(3);
  });
});
