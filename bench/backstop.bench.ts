import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { generatePrivateKey } from "viem/accounts";
import { HlClient } from "../src/exchange/index.ts";
import { DEFAULT_BACKSTOP } from "../src/guard/backstop.ts";
import {
  type BackstopPort,
  type BackstopState,
  Backstops,
  type RestingStop,
  type StopSpec,
} from "../src/guard/backstops.ts";
import { dslConfigFromPreset } from "../src/guard/config.ts";
import { dslFloor, evaluateDsl, newDslState, priceAtRoe } from "../src/guard/dsl.ts";
import { HlBackstopPort } from "../src/guard/hl-backstops.ts";
import { startSimWorld } from "../src/sim/world.ts";
import { buildWolfConfig } from "../src/wolf/config.ts";
import { HlWolfPort } from "../src/wolf/hl-port.ts";
import type { IocRequest, IocResult } from "../src/wolf/port.ts";
import { WolfRunner } from "../src/wolf/runner.ts";
import { type BenchReporter, percentile } from "./harness.ts";

/** WOLF's port on the sim, noting when an entry's fill comes back and when its stop is resting. */
class TimedPort extends HlWolfPort {
  filledAt = 0;
  restingAt = 0;
  override readonly backstops: BackstopPort;

  constructor(client: HlClient) {
    super(client);
    const inner = new HlBackstopPort(client);
    const timed = this;
    this.backstops = {
      szDecimals: (c) => inner.szDecimals(c),
      async placeStop(spec) {
        const r = await inner.placeStop(spec);
        if (r.status === "resting") timed.restingAt = performance.now();
        return r;
      },
      modifyStop: (spec) => inner.modifyStop(spec),
      cancelStop: (coin, cloid) => inner.cancelStop(coin, cloid),
      restingStops: (coins, opts) => inner.restingStops(coins, opts),
      hasPosition: (coin) => inner.hasPosition(coin),
    };
  }

  override async ioc(req: IocRequest): Promise<IocResult> {
    const r = await super.ioc(req);
    if (!req.reduceOnly && r.status === "filled") this.filledAt = performance.now();
    return r;
  }
}

/** Entry fill → the position's stop resting on the sim, through WOLF's own entry path. */
async function placementAfterFill(r: BenchReporter): Promise<void> {
  // The per-IP weight limit is off: it times stop placement in a loop, past one IP's 1200 weight a minute.
  const world = await startSimWorld({ ipWeightLimit: false, seed: 31 });
  const client = await HlClient.create({
    network: "paper",
    apiUrl: world.url,
    wsUrl: world.wsUrl,
    privateKey: generatePrivateKey(),
    env: { DATA_DIR: mkdtempSync(join(tmpdir(), "backstop-bench-key-")) },
    retry: { attempts: 1 },
  });
  await client.clearinghouseState();
  const port = new TimedPort(client);
  const runner = await WolfRunner.open({
    port,
    dataDir: mkdtempSync(join(tmpdir(), "backstop-bench-")),
    preset: "default",
    config: buildWolfConfig("default", {}, { leverage: 10, daily_loss_limit: 1_000_000_000 }),
    log: () => undefined,
    stream: false,
  });
  const samples: number[] = [];
  try {
    for (let i = 0; i < 40; i++) {
      port.filledAt = 0;
      port.restingAt = 0;
      await runner.enter({
        slot_id: 0,
        coin: i % 2 === 0 ? "ETH" : "SOL",
        direction: i % 4 < 2 ? "long" : "short",
        source: "bench",
        score: 100,
        priority: 1,
        reason: "bench entry",
      });
      await runner.settled();
      if (port.filledAt === 0 || port.restingAt === 0) throw new Error("no entry fill or no stop placed");
      samples.push(port.restingAt - port.filledAt);
      await runner.exitSlot(0, "bench");
      await runner.settled();
    }
  } finally {
    await runner.close();
    await client.close();
    await world.close();
  }
  r.figure({
    name: `backstop placed after an entry fill, p99 (${samples.length} entries)`,
    value: percentile(samples, 99),
    unit: "ms",
    target: { op: "<", value: 200 },
  });
  r.figure({ name: "backstop placed after an entry fill, p50", value: percentile(samples, 50), unit: "ms" });
}

/** An exchange that holds stops in memory and answers at once (the decisions are what is measured). */
class MemoryStops implements BackstopPort {
  stops = new Map<string, RestingStop>();
  private oid = 1;
  async szDecimals(): Promise<number> {
    return 2;
  }
  async placeStop(s: StopSpec) {
    const oid = this.oid++;
    this.stops.set(s.cloid, { coin: s.coin, cloid: s.cloid, oid, size: s.size, triggerPx: s.triggerPx });
    return { status: "resting" as const, oid };
  }
  async modifyStop(s: StopSpec) {
    return this.placeStop(s);
  }
  async cancelStop(_coin: string, cloid: `0x${string}`) {
    this.stops.delete(cloid);
  }
  async restingStops() {
    return [...this.stops.values()];
  }
  async hasPosition() {
    return true;
  }
}

/**
 * Weight spent ratcheting one slot's stop for an hour of a steadily trending market (+1 % ROE-scale
 * moves with noise, a price every 250 ms), with WOLF's defaults: the real DSL floor, the real keeper.
 */
async function ratchetWeight(r: BenchReporter): Promise<void> {
  for (const [label, trendPerHour] of [
    ["+8 %/h", 0.08],
    ["+30 %/h", 0.3],
  ] as const) {
    const port = new MemoryStops();
    let now = Date.UTC(2026, 0, 5, 12);
    const keeper = new Backstops({
      port,
      owner: "wolf",
      settings: () => DEFAULT_BACKSTOP,
      now: () => now,
      log: () => undefined,
    });
    const entry = 100;
    const leverage = 10;
    const cfg = dslConfigFromPreset("tight", { direction: "long", leverage });
    let dsl = newDslState({
      position_id: "bench",
      instrument: "X-PERP",
      entry_price: entry,
      position_size: "10",
      nowMs: now,
    });
    let state: BackstopState | undefined;
    let seed = 7;
    const noise = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return (seed / 2 ** 31 - 0.5) * 0.0008;
    };
    const steps = 3600 * 4;
    for (let i = 0; i < steps; i++) {
      now += 250;
      const px = entry * (1 + (trendPerHour * i) / steps) * (1 + noise());
      dsl = evaluateDsl(cfg, dsl, px, now).state;
      const next = await keeper.sync(
        {
          key: "bench",
          coin: "X",
          side: "long",
          size: "10",
          stops: [priceAtRoe("long", entry, -5, leverage), dslFloor(cfg, dsl)],
        },
        state,
      );
      if (next) state = next;
    }
    const ratchets = keeper.actions - 1; // the first action is the placement

    r.figure({
      name: `backstop ratchet weight per slot per hour, trend ${label}`,
      value: ratchets,
      unit: "weight/h",
      target: { op: "<=", value: 60 },
    });
  }
}

export default async function (r: BenchReporter): Promise<void> {
  await placementAfterFill(r);
  await ratchetWeight(r);
}
