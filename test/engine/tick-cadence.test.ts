import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Engine } from "../../src/engine/engine.ts";
import { PaperGateway } from "../../src/engine/paper-gateway.ts";
import type { MarketDataPort } from "../../src/engine/ports.ts";
import { DEFAULT_RISK_LIMITS } from "../../src/engine/risk.ts";
import { defaultParams, findStrategy } from "../../src/strategies/catalog.ts";
import { FakeMarket } from "./fake-market.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * Under `hl up` the house agents' reads wait for their process's share of the IP's weight: each
 * tick then slept its whole interval after that wait, so 5 s ticks came 8-9 s apart while the share
 * went a third unspent (bench traders-weight: 171 of 240 a minute). A tick's wait now counts toward
 * its interval: ticks start on the interval's rhythm whenever the waits allow it.
 */
describe("the engine's tick interval", () => {
  it("counts the time a tick spent waiting for its reads: ticks start an interval apart, not an interval after the last one ended", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hl-tick-cadence-"));
    dirs.push(dir);
    const fake = new FakeMarket({ seed: 4 });
    const starts: number[] = [];
    // Each snapshot (a tick's first read) waits 300 ms, as for its weight.
    const slow: MarketDataPort = {
      spec: (instrument) => fake.spec(instrument),
      snapshot: async (instrument) => {
        starts.push(Date.now());
        await new Promise((r) => setTimeout(r, 300));
        return fake.snapshot(instrument);
      },
    };
    const paper = new PaperGateway();
    const strategy = findStrategy("simple_mm")!;
    const engine = new Engine({
      strategy,
      params: defaultParams(strategy),
      instrument: "ETH-PERP",
      market: paper.watch(slow),
      gateway: paper,
      dataDir: dir,
      tickMs: 450,
      maxTicks: 2,
      resume: false,
      limits: DEFAULT_RISK_LIMITS,
      requoteBps: 2,
      mode: "dry-run",
      network: "test",
      log: () => undefined,
    });
    await engine.run();
    // The reconcile's snapshot, then one per tick.
    const ticks = starts.slice(1);
    expect(ticks).toHaveLength(2);
    const gaps = ticks.slice(1).map((t, i) => t - ticks[i]!);
    // 450 ms apart (750 when each tick slept its interval after its 300 ms wait).
    for (const gap of gaps) expect(gap).toBeLessThan(620);
  });
});
