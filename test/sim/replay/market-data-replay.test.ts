import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HlMarketData } from "../../../src/engine/hl-adapter.ts";
import { RateBudget } from "../../../src/exchange/budget.ts";
import { HlClient } from "../../../src/exchange/client.ts";
import type { RecordedCandle } from "../../../src/sim/replay/recorded.ts";
import { type SimWorld, startSimWorld } from "../../../src/sim/world.ts";

/** Days before the wall clock: a recording replayed there is far outside "now − 30 min". */
const START = Date.UTC(2026, 0, 10, 12, 0);
const MIN = 60_000;

describe("engine market data against a world replaying the past", () => {
  let world: SimWorld;
  let client: HlClient;
  const candles: RecordedCandle[] = Array.from({ length: 120 }, (_, i) => ({
    t: START + (i - 60) * MIN,
    o: 2000 + i,
    h: 2002 + i,
    l: 1999 + i,
    c: 2001 + i,
    v: 3 + i,
    n: 5,
  }));
  beforeAll(async () => {
    world = await startSimWorld({
      speed: 1e-9,
      replay: { fromMs: START, markets: [{ coin: "ETH", candles, books: [], funding: [] }] },
    });
    client = await HlClient.create({
      network: "paper",
      apiUrl: world.url,
      env: { DATA_DIR: mkdtempSync(join(tmpdir(), "hl-replay-md-")) },
      budget: new RateBudget({ weightPerMinute: 1e9 }),
    });
  });
  afterAll(async () => {
    await world.close();
  });

  it("reads the candles of the exchange's time, not of the wall clock", async () => {
    world.advance(5 * MIN);
    const md = new HlMarketData(client, { candles: true });
    const s = await md.snapshot("ETH-PERP");
    expect(s.timestampMs).toBe(START + 5 * MIN);
    expect(s.candles.length).toBeGreaterThanOrEqual(29);
    const last = s.candles[s.candles.length - 1]!;
    expect(last).toMatchObject({ t: START + 4 * MIN, c: 2001 + 64, v: 3 + 64 });
  });

  it("carries closed minutes only: the one in progress is partial (as a backtest never sees it)", async () => {
    world.advance(30_000);
    const md = new HlMarketData(client, { candles: true });
    const s = await md.snapshot("ETH-PERP");
    expect(s.candles.every((k) => k.t + MIN <= s.timestampMs)).toBe(true);
    expect(s.candles.at(-1)?.t).toBe(START + 4 * MIN);
    world.advance(30_000);
    expect((await md.snapshot("ETH-PERP")).candles.at(-1)?.t).toBe(START + 5 * MIN);
  });
});
