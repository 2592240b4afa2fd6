import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_BUILDERS, pointsConfig } from "../../../src/services/points/config.ts";
import {
  EXCHANGE_FILL_WINDOW,
  FillHistory,
  type SourceFill,
} from "../../../src/services/points/fill-history.ts";
import { PointsService } from "../../../src/services/points/service.ts";
import { SqlitePointsStore } from "../../../src/services/points/store.ts";

const COIN = "yex:BTCSWP";
const USER = "0x00000000000000000000000000000000000000c3";

/** An exchange that, like Hyperliquid, answers a time window from only the user's last 10,000 fills. */
class WindowedExchange {
  readonly fills: SourceFill[] = [];
  calls: number[] = [];
  private tid = 0;

  trade(n: number, fromMs: number, coin = COIN): void {
    for (let i = 0; i < n; i++) {
      this.tid++;
      this.fills.push({
        tid: this.tid,
        // Two fills per millisecond: a sync boundary falls between fills of the same time.
        time: fromMs + Math.floor(i / 2),
        coin,
        side: i % 2 ? "A" : "B",
        px: "75000",
        sz: "0.01",
        crossed: i % 3 === 0,
      });
    }
  }

  fetch = async (_user: string, startMs: number): Promise<SourceFill[]> => {
    this.calls.push(startMs);
    return this.fills.slice(-EXCHANGE_FILL_WINDOW).filter((f) => f.time >= startMs);
  };
}

const history = () => new FillHistory(new SqlitePointsStore(":memory:"), COIN);

describe("FillHistory", () => {
  it("a followed wallet keeps every fill past the exchange's 10,000-fill window, each once", async () => {
    const ex = new WindowedExchange();
    const h = history();
    ex.trade(8_000, 1_000_000);
    const first = await h.sync(USER, ex.fetch, 0);
    expect(first.fills).toHaveLength(8_000);
    expect(first.coverage).toEqual({ complete: true, missingBeforeMs: null });

    ex.trade(8_000, 2_000_000);
    const second = await h.sync(USER, ex.fetch, 0);
    // Only what is new was asked for: from the newest fill already seen.
    expect(ex.calls).toEqual([0, 1_000_000 + 3_999]);
    expect(second.fills).toHaveLength(16_000);
    expect(new Set(second.fills.map((f) => f.tid)).size).toBe(16_000);
    expect(second.coverage.complete).toBe(true);
    expect(second.fills.map((f) => f.time)).toEqual(
      [...second.fills.map((f) => f.time)].sort((a, b) => a - b),
    );
  });

  it("a wallet first seen beyond the window says which fills may be missing instead of scoring them as none", async () => {
    const ex = new WindowedExchange();
    ex.trade(16_000, 1_000_000);
    const h = history();
    const r = await h.sync(USER, ex.fetch, 0);
    expect(r.fills).toHaveLength(EXCHANGE_FILL_WINDOW);
    const oldestReachable = ex.fills[16_000 - EXCHANGE_FILL_WINDOW]!.time;
    expect(r.coverage).toEqual({ complete: false, missingBeforeMs: oldestReachable });
    // Later syncs do not forget the gap.
    ex.trade(10, 5_000_000);
    expect((await h.sync(USER, ex.fetch, 0)).coverage.complete).toBe(false);
  });

  it("stores only the scored coin (other coins still count toward the exchange's window) and honours the program start", async () => {
    const ex = new WindowedExchange();
    ex.trade(100, 1_000_000, "yex:VXX");
    ex.trade(100, 2_000_000);
    const h = history();
    const r = await h.sync(USER, ex.fetch, 2_000_010);
    expect(r.fills.every((f) => f.coin === COIN && f.time >= 2_000_010)).toBe(true);
    expect(r.fills).toHaveLength(80);
    expect(await h.knownUsers()).toEqual([USER]);
  });

  it("keeps the history on disk across restarts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fill-history-"));
    try {
      const path = join(dir, "points.db");
      const ex = new WindowedExchange();
      ex.trade(50, 1_000_000);
      const db1 = new SqlitePointsStore(path);
      await new FillHistory(db1, COIN).sync(USER, ex.fetch, 0);
      await db1.close();
      // The exchange forgets (a window of nothing new): the stored fills still count.
      const db2 = new SqlitePointsStore(path);
      const r = await new FillHistory(db2, COIN).sync(USER, async () => [], 0);
      expect(r.fills).toHaveLength(50);
      await db2.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the points service follows every wallet it has been asked about, between requests", async () => {
    const ex = new WindowedExchange();
    const h = history();
    const cfg = { ...pointsConfig("paper", "http://127.0.0.1:9", {}), builders: [...DEFAULT_BUILDERS] };
    const service = new PointsService(cfg, {
      fills: { now: async () => 9_000_000, fills: ex.fetch, maxBuilderFee: async () => 0 },
      files: { day: async () => null },
      marks: { marksAt: async (times) => times.map(() => null) },
      history: h,
    });
    ex.trade(6_000, 1_000_000);
    expect((await service.wallet(USER)).summary).toMatchObject({
      fills_total: 6_000,
      history: { complete: true, missing_before: null },
    });
    // Between two requests the wallet trades past the window; following keeps every fill.
    ex.trade(6_000, 2_000_000);
    expect(await service.followAll(() => undefined)).toBe(1);
    ex.trade(6_000, 3_000_000);
    const errors: unknown[] = [];
    expect(await service.followAll((_u, e) => errors.push(e))).toBe(1);
    expect(errors).toEqual([]);
    const stored = await h.sync(USER, async () => [], 0);
    expect(stored.fills).toHaveLength(18_000);
    expect(stored.coverage.complete).toBe(true);
  });
});
