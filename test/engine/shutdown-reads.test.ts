import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generatePrivateKey } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Engine } from "../../src/engine/engine.ts";
import { HlGateway, HlMarketData } from "../../src/engine/hl-adapter.ts";
import { DEFAULT_RISK_LIMITS } from "../../src/engine/risk.ts";
import { readKvFile } from "../../src/engine/state-store.ts";
import { BrokerBudget } from "../../src/exchange/broker-budget.ts";
import { CRITICAL_RESERVE_SHARE, RateBudget, sharedRateBudget } from "../../src/exchange/budget.ts";
import { HlClient } from "../../src/exchange/client.ts";
import { startWeightBroker, type WeightBroker } from "../../src/exchange/weight-broker.ts";
import { hostTraders } from "../../src/services/host/traders.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { defaultParams, findStrategy } from "../../src/strategies/catalog.ts";

/**
 * Ctrl-C under `hl up`: a house agent's shutdown reads its open orders (to cancel its resting quotes)
 * and its last fills. With its process's share spent for the minute they waited up to a minute for
 * it, though the IP had weight left at the weight broker, and `hl up` took 6–10 s to stop (a
 * machine under load: up to the traders' 15 s stop timeout, killed with its quotes resting). They now
 * take the broker's grant when it comes first.
 */
describe("a stopping run whose process's share is spent", () => {
  let world: SimWorld;
  let broker: WeightBroker;
  const dir = mkdtempSync(join(tmpdir(), "hl-shutdown-reads-"));
  const clients: HlClient[] = [];

  beforeAll(async () => {
    world = await startSimWorld({
      port: 0,
      seed: 5,
      historyDays: 0,
      liveCoins: ["ETH"],
      ipWeightLimit: false,
    });
    broker = await startWeightBroker({ socketPath: join(dir, "broker.sock") });
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await broker.close();
    await world.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function client(key: string, budget: RateBudget | BrokerBudget): Promise<HlClient> {
    const c = await HlClient.create({
      network: "paper",
      apiUrl: world.url,
      wsUrl: world.wsUrl,
      privateKey: key,
      env: { DATA_DIR: dir },
      budget,
    });
    clients.push(c);
    await c.clearinghouseState();
    return c;
  }

  it("cancels its resting quotes and saves its state within moments, the reads granted from the IP's room", async () => {
    const key = generatePrivateKey();
    // The process's share (a traders process's 300 a minute), and the IP's through the broker.
    const share = new RateBudget({ weightPerMinute: 300, reserveShare: CRITICAL_RESERVE_SHARE });
    const budget = new BrokerBudget({
      socketPath: broker.socketPath,
      api: world.url,
      fallback: share,
      log: () => undefined,
    });
    const trader = await client(key, budget);
    const observer = await client(key, new RateBudget({ weightPerMinute: 1e6 }));
    const market = new HlMarketData(trader);
    // No streams: every read of open orders and fills is a REST read, as when the stream is down.
    const gateway = new HlGateway(trader, market);
    const strategy = findStrategy("simple_mm")!;
    const engineDir = join(dir, "cli");
    const engine = new Engine({
      strategy,
      params: defaultParams(strategy),
      instrument: "ETH-PERP",
      market,
      gateway,
      dataDir: engineDir,
      tickMs: 300,
      maxTicks: 0,
      resume: false,
      limits: DEFAULT_RISK_LIMITS,
      requoteBps: 2,
      mode: "mock",
      network: "paper",
      log: () => undefined,
    });
    const run = engine.run();
    const resting = async () => (await observer.openOrders()).filter((o) => o.coin === "ETH").length;
    const deadline = Date.now() + 10_000;
    while ((await resting()) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await resting()).toBeGreaterThan(0);

    // The share is spent for the next minute; the IP has room.
    share.charge(300);
    const asked = Date.now();
    engine.stop();
    const slow = new Promise<"still running">((r) => setTimeout(() => r("still running"), 3_000).unref());
    const outcome = await Promise.race([run, slow]);
    expect(outcome).not.toBe("still running");
    expect(Date.now() - asked).toBeLessThan(2_000);
    expect(await resting()).toBe(0);
    const saved = readKvFile(join(engineDir, "state.db")).run;
    expect((JSON.parse(saved!) as { status?: string }).status).toBe("stopped");
  });
  it("hl up's traders process: two house agents quoting, the share spent, Ctrl-C ends them within 2 s with no quote left", async () => {
    const keys = [generatePrivateKey(), generatePrivateKey()];
    const env = {
      HL_NETWORK: "paper",
      HL_API_URL: world.url,
      HL_WEIGHT_BROKER: broker.socketPath,
      HL_RATE_WEIGHT_PER_MIN: "300",
    };
    const specs = keys.map((key, i) => ({
      name: `house-${i + 1}`,
      args: ["run", "simple_mm", "-i", "ETH-PERP", "--tick", "1"],
      env: { DATA_DIR: join(dir, `house-${i + 1}`), HL_PRIVATE_KEY: key },
    }));
    const host = await hostTraders(specs, { env, log: () => undefined, warn: () => undefined });
    const observers = await Promise.all(keys.map((k) => client(k, new RateBudget({ weightPerMinute: 1e6 }))));
    const resting = async () => {
      const lists = await Promise.all(observers.map((o) => o.openOrders()));
      return lists.map((l) => l.filter((o) => o.coin === "ETH").length);
    };
    const deadline = Date.now() + 10_000;
    while ((await resting()).some((n) => n === 0) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    expect((await resting()).every((n) => n > 0)).toBe(true);

    // The process's share (and as much at the broker) spent for the minute, as after a busy tick.
    sharedRateBudget(world.url, env).charge(300);
    const asked = Date.now();
    const closed = host.close().then(() => "closed");
    const slow = new Promise<"still running">((r) => setTimeout(() => r("still running"), 3_000).unref());
    expect(await Promise.race([closed, slow])).toBe("closed");
    expect(Date.now() - asked).toBeLessThan(2_000);
    expect(await resting()).toEqual([0, 0]);
  });
});
