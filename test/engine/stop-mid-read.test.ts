import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Engine } from "../../src/engine/engine.ts";
import { PaperGateway } from "../../src/engine/paper-gateway.ts";
import type { MarketDataPort } from "../../src/engine/ports.ts";
import { DEFAULT_RISK_LIMITS } from "../../src/engine/risk.ts";
import { runStrategy, StoppedWhileStartingError } from "../../src/engine/runner.ts";
import { readKvFile } from "../../src/engine/state-store.ts";
import { BrokerBudget } from "../../src/exchange/broker-budget.ts";
import { CRITICAL_RESERVE_SHARE, RateBudget, type WeightBudget } from "../../src/exchange/budget.ts";
import { HlClient } from "../../src/exchange/client.ts";
import { ResilientTransport } from "../../src/exchange/transport.ts";
import { startWeightBroker } from "../../src/exchange/weight-broker.ts";
import { defaultParams, findStrategy } from "../../src/strategies/catalog.ts";
import { FakeMarket } from "./fake-market.ts";

/**
 * Ctrl-C under `hl up` stopped a house agent only once the tick it was in had its reads: a read
 * waiting for weight (its process's share spent, or a candle read queued at the weight broker behind
 * WOLF's scan) held the stop for up to the budget's minute. The tick now ends at that read.
 */

// Nothing answers here: a read that got its weight would fail, and none must get it.
const API = "http://127.0.0.1:1";
const dirs: string[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "hl-stop-read-"));
  dirs.push(d);
  return d;
}

/** The run status shutdown saved in `state.db` ("running" when it never saved). */
function savedRunStatus(path: string): unknown {
  const kv = readKvFile(path);
  return kv.run === undefined ? undefined : (JSON.parse(kv.run) as { status?: unknown }).status;
}

/** A budget with the whole minute spent: the next read waits about 61 s for its weight. */
function spentBudget(): RateBudget {
  const budget = new RateBudget({ weightPerMinute: 100, reserveShare: CRITICAL_RESERVE_SHARE });
  budget.charge(100);
  return budget;
}

/**
 * Market data whose snapshots from the `readsFrom`-th on first read the exchange through `budget` (as
 * HlMarketData does): the first is the engine's reconcile before its first tick, the second its tick.
 */
function readingMarket(budget: WeightBudget, payload: Record<string, unknown>, readsFrom = 2) {
  const transport = new ResilientTransport({ apiUrl: API, isTestnet: true, budget });
  const fake = new FakeMarket({ seed: 3 });
  let reading: () => void = () => undefined;
  const readStarted = new Promise<void>((resolve) => {
    reading = resolve;
  });
  let snapshots = 0;
  const market: MarketDataPort = {
    spec: (instrument) => fake.spec(instrument),
    snapshot: async (instrument) => {
      snapshots += 1;
      if (snapshots < readsFrom) return fake.snapshot(instrument);
      reading();
      await transport.request("info", payload);
      return fake.snapshot(instrument);
    },
  };
  return { market, readStarted };
}

/** Runs an engine on `market`, stops it once its tick is waiting, and says how long the stop took. */
async function stopWhileWaiting(m: ReturnType<typeof readingMarket>, dataDir: string) {
  const paper = new PaperGateway();
  const strategy = findStrategy("simple_mm")!;
  const lines: string[] = [];
  const engine = new Engine({
    strategy,
    params: defaultParams(strategy),
    instrument: "ETH-PERP",
    market: paper.watch(m.market),
    gateway: paper,
    dataDir,
    tickMs: 0,
    maxTicks: 0,
    resume: true,
    limits: DEFAULT_RISK_LIMITS,
    requoteBps: 2,
    mode: "dry-run",
    network: "test",
    log: (l) => lines.push(l),
  });
  const run = engine.run();
  await m.readStarted;
  await new Promise((r) => setTimeout(r, 50));
  const asked = Date.now();
  engine.stop();
  const slow = new Promise<"still running">((r) => setTimeout(() => r("still running"), 3_000).unref());
  const outcome = await Promise.race([run, slow]);
  return { outcome, stopMs: Date.now() - asked, lines };
}

describe("stopping a run whose tick waits for request weight", () => {
  it("a read waiting for the process's own share is given up: the run stops at once and saves its state", async () => {
    const dir = tmp();
    const m = readingMarket(spentBudget(), { type: "l2Book", coin: "ETH" });
    const { outcome, stopMs, lines } = await stopWhileWaiting(m, dir);
    expect(outcome).not.toBe("still running");
    expect(stopMs).toBeLessThan(2_000);
    expect(outcome).toMatchObject({ stopReason: "signal" });
    expect(lines.some((l) => /cut short by the stop/.test(l))).toBe(true);
    // Shutdown ran in full: the state says stopped, not a tick left half done.
    expect(savedRunStatus(join(dir, "state.db"))).toBe("stopped");
  });

  it("a read of the reconcile before the first tick is given up too", async () => {
    const dir = tmp();
    const m = readingMarket(spentBudget(), { type: "l2Book", coin: "ETH" }, 1);
    const { outcome, stopMs } = await stopWhileWaiting(m, dir);
    expect(outcome).not.toBe("still running");
    expect(stopMs).toBeLessThan(2_000);
    expect(savedRunStatus(join(dir, "state.db"))).toBe("stopped");
  });

  it("a candle read waiting for the weight broker's grant is given up, and the broker spends nothing on it", async () => {
    const dir = tmp();
    const ipBudget = spentBudget();
    const broker = await startWeightBroker({ socketPath: join(dir, "broker.sock"), budget: () => ipBudget });
    closers.push(() => broker.close());
    const budget = new BrokerBudget({
      socketPath: broker.socketPath,
      api: API,
      fallback: new RateBudget({ weightPerMinute: 1e6 }),
      log: () => undefined,
    });
    const candles = { type: "candleSnapshot", req: { coin: "ETH", interval: "1m", startTime: 0 } };
    const m = readingMarket(budget, candles);
    const { outcome, stopMs } = await stopWhileWaiting(m, join(dir, "run"));
    expect(outcome).not.toBe("still running");
    expect(stopMs).toBeLessThan(2_000);
    expect(savedRunStatus(join(dir, "run", "state.db"))).toBe("stopped");
  });
});

describe("stopping hl run while it starts", () => {
  it("a read of the setup (the market's spec) waiting for weight is given up: the run ends at once, before any tick", async () => {
    const dir = tmp();
    const client = await HlClient.create({
      network: "paper",
      apiUrl: API,
      env: { DATA_DIR: dir },
      budget: spentBudget(),
    });
    const stop = new AbortController();
    const run = runStrategy({
      strategy: "simple_mm",
      instrument: "ETH-PERP",
      tickSeconds: 1,
      maxTicks: 1,
      mock: true,
      dryRun: false,
      resume: true,
      dataDir: join(dir, "cli"),
      client,
      signal: stop.signal,
      log: () => undefined,
    });
    await new Promise((r) => setTimeout(r, 100));
    const asked = Date.now();
    stop.abort();
    const slow = new Promise<"still running">((r) => setTimeout(() => r("still running"), 3_000).unref());
    const outcome = await Promise.race([
      run.then(
        () => "ran",
        (err: unknown) => err,
      ),
      slow,
    ]);
    expect(outcome).toBeInstanceOf(StoppedWhileStartingError);
    expect(Date.now() - asked).toBeLessThan(2_000);
  });
});
