import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FeedEngine } from "../../../src/services/feeds/engine.ts";
import { HOUR_MS } from "../../../src/services/feeds/oracle.ts";
import { FEEDS } from "../../../src/services/feeds/profiles.ts";
import type { FundingSource } from "../../../src/services/feeds/source.ts";
import { SqliteFeedStore } from "../../../src/services/feeds/store.ts";

const T0 = Date.UTC(2026, 4, 1);

/** A scripted exchange: a settable clock, settled hours, and a live rate. */
class FakeSource implements FundingSource {
  clock = T0;
  live = "0.0000200";
  settled: { time: number; rate: string }[] = [];
  historyReads = 0;
  async now() {
    return this.clock;
  }
  async history(_coin: string, startMs: number) {
    this.historyReads++;
    return this.settled.filter((r) => r.time >= startMs && r.time <= this.clock);
  }
  async predicted() {
    return this.live;
  }
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "feeds-engine-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function engine(src: FakeSource, store: SqliteFeedStore) {
  return new FeedEngine(FEEDS.btcswp, store, src, { inceptionMs: T0, historyRetryMs: 0 });
}

describe("feed engine", () => {
  it("reproduces the vector's normal example through nowcast and true-up", async () => {
    const src = new FakeSource();
    src.settled = [
      { time: T0 + HOUR_MS + 12, rate: "0.0000125" },
      { time: T0 + 2 * HOUR_MS + 7, rate: "0.0000300" },
      { time: T0 + 3 * HOUR_MS + 40, rate: "-0.0000050" },
    ];
    src.clock = T0 + 3 * HOUR_MS + HOUR_MS / 2;
    const store = new SqliteFeedStore(join(dir, "f.db"));
    const e = engine(src, store);
    await e.start();
    // Replay publishes one tick per settled hour, then the live nowcast of hour 4.
    expect((await store.ticks("BTCSWP", 0, Number.MAX_SAFE_INTEGER, 10)).map((t) => t.oracle_px)).toEqual([
      "75144.000000",
      "75538.973952",
      "75377.333399",
    ]);
    const tick = await e.poll();
    expect(tick?.oracle_px).toBe("75490.482139");
    expect(tick?.fixed_leg).toBe("0.0000049135013278317672448");
    await store.close();
  });

  it("true-up at the hour replaces the nowcast without a jump when the prediction was right", async () => {
    const src = new FakeSource();
    const store = new SqliteFeedStore(join(dir, "f.db"));
    const e = engine(src, store);
    await e.start();
    src.live = "0.0000040";
    src.clock = T0 + HOUR_MS - 1;
    const before = await e.poll();
    src.clock = T0 + HOUR_MS + 1_000;
    // The hour's realized rate is not published yet: the nowcast keeps running past the hour.
    const late = await e.poll();
    expect(late!.settled_through).toBe(T0);
    src.settled.push({ time: T0 + HOUR_MS + 2, rate: "0.0000040" });
    src.live = "0.0000040";
    src.clock = T0 + HOUR_MS + 2_000;
    const after = await e.poll();
    expect(after!.settled_through).toBe(T0 + HOUR_MS);
    // Σ excess moved by (4e-6 − 2.9e-6) over the hour: 15e6·1.1e-6 = 16.5; the true-up lands on it.
    expect(before!.oracle_px).toBe("75016.499995");
    const afterRaw = Number(after!.raw_px);
    expect(afterRaw).toBeGreaterThan(75016.5);
    expect(afterRaw).toBeLessThan(75016.52);
    await store.close();
  });

  it("publishes only when the price changes, or after max silence", async () => {
    const src = new FakeSource();
    const store = new SqliteFeedStore(join(dir, "f.db"));
    const e = new FeedEngine(FEEDS.btcswp, store, src, { inceptionMs: T0, maxSilenceMs: 30_000 });
    await e.start();
    src.live = FEEDS.btcswp.profile.k0.toFixed(); // zero excess: the price stands still
    src.clock = T0 + 1_000;
    expect(await e.poll()).not.toBeNull(); // first publication
    src.clock = T0 + 2_000;
    expect(await e.poll()).toBeNull();
    src.clock = T0 + 31_000;
    expect((await e.poll())?.oracle_px).toBe("75000.000000");
    src.live = "0.00001";
    src.clock = T0 + 32_000;
    expect(await e.poll()).not.toBeNull();
    await store.close();
  });

  it("restart continuity: persisted state reopens at the same price, and replays missed hours", async () => {
    const src = new FakeSource();
    src.live = "0.0010000"; // a spike: publication is clamped, so the anchor matters
    const path = join(dir, "f.db");
    let store = new SqliteFeedStore(path);
    let e = engine(src, store);
    await e.start();
    src.clock = T0 + HOUR_MS / 2;
    const before = await e.poll();
    await store.close();

    store = new SqliteFeedStore(path);
    e = engine(src, store);
    await e.start();
    expect(e.latest()).toEqual(before);
    const again = await e.poll(); // same exchange time: same price, nothing new
    expect(again).toBeNull();
    expect(e.latest()?.oracle_px).toBe(before!.oracle_px);
    await store.close();

    // Down across two hour boundaries: the replay settles both and resumes from the stored anchor.
    src.settled.push(
      { time: T0 + HOUR_MS, rate: "0.0010000" },
      { time: T0 + 2 * HOUR_MS, rate: "0.0000100" },
    );
    src.clock = T0 + 2 * HOUR_MS + 60_000;
    store = new SqliteFeedStore(path);
    e = engine(src, store);
    await e.start();
    const hourTicks = await store.ticks("BTCSWP", T0 + HOUR_MS, T0 + 2 * HOUR_MS, 10);
    expect(hourTicks.map((t) => t.timestamp)).toEqual([T0 + HOUR_MS, T0 + 2 * HOUR_MS]);
    const first = Number(before!.oracle_px);
    expect(Number(hourTicks[0]!.oracle_px)).toBeCloseTo(first * 1.01, 3);
    await store.close();

    // A fresh process with the same store computes the same index as one that never stopped.
    const store2 = new SqliteFeedStore(path);
    const e2 = engine(src, store2);
    await e2.start();
    const a = await e2.poll();
    expect(a?.settled_through).toBe(T0 + 2 * HOUR_MS);
    await store2.close();
  });

  it("refuses to start when replaying the stored hours no longer reproduces the saved index", async () => {
    const src = new FakeSource();
    src.settled = [{ time: T0 + HOUR_MS, rate: "0.00002" }];
    src.clock = T0 + HOUR_MS + 60_000;
    const path = join(dir, "f.db");
    const store = new SqliteFeedStore(path);
    await engine(src, store).start();
    expect((await store.state("BTCSWP"))?.settledThroughMs).toBe(T0 + HOUR_MS);
    const changed = {
      ...FEEDS.btcswp,
      profile: { ...FEEDS.btcswp.profile, k0: FEEDS.btcswp.profile.k0.plus("1e-7") },
    };
    await expect(new FeedEngine(changed, store, src, { inceptionMs: T0 }).start()).rejects.toThrow(
      /does not reproduce/,
    );
    await expect(engine(src, store).start()).resolves.toBeUndefined();
    await store.close();
  });

  it("refuses to change a stored inception", async () => {
    const src = new FakeSource();
    const path = join(dir, "f.db");
    const store = new SqliteFeedStore(path);
    await engine(src, store).start();
    await expect(
      new FeedEngine(FEEDS.btcswp, store, src, { inceptionMs: T0 - HOUR_MS }).start(),
    ).rejects.toThrow(/inception/);
    await store.close();
  });
});

describe("a feed at start (ETHCSWP)", () => {
  it("serves nothing before its first computed value, then the methodology's value at once", async () => {
    const src = new FakeSource();
    src.clock = T0 + HOUR_MS / 2;
    const store = new SqliteFeedStore(join(dir, "eth.db"));
    const e = new FeedEngine(FEEDS.ethcswp, store, src, { inceptionMs: T0, historyRetryMs: 0 });
    await e.start();
    expect(e.latest()).toBeUndefined(); // no placeholder: unavailable until computed
    // ETH funding at the interest rate is exactly the fixed leg K0: no excess, so the index sits at its
    // baseline. 3000.000000 is then the real value, not a default.
    src.live = "0.0000125";
    expect((await e.poll())?.oracle_px).toBe("3000.000000");
    // Excess funding moves it at once, on the next poll.
    src.live = "0.0000200";
    src.clock += 1000;
    const moved = await e.poll();
    expect(moved?.oracle_px).not.toBe("3000.000000");
    store.close();
  });
});
