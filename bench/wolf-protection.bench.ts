import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { coinToInstrument, HlClient } from "../src/exchange/index.ts";
import { DEFAULT_MARKETS } from "../src/sim/venue/markets.ts";
import { startSimWorld } from "../src/sim/world.ts";
import { buildWolfConfig } from "../src/wolf/config.ts";
import { HlWolfPort } from "../src/wolf/hl-port.ts";
import { WolfRunner } from "../src/wolf/runner.ts";
import { type BenchReporter, percentile } from "./harness.ts";

/** The port WOLF uses on the sim, noting when a breaching price first reaches WOLF (streamed or polled). */
class WatchedPort extends HlWolfPort {
  breach: ((mids: Record<string, string>) => boolean) | undefined;
  breachSeenAt = 0;

  private note(mids: Record<string, string>): void {
    if (this.breach && this.breachSeenAt === 0 && this.breach(mids)) this.breachSeenAt = performance.now();
  }

  override async mids(): Promise<Record<string, string>> {
    const mids = await super.mids();
    this.note(mids);
    return mids;
  }

  override subscribeMids(listener: (m: Record<string, string>) => void, onFailure?: (r: string) => void) {
    return super.subscribeMids((m) => {
      this.note(m);
      listener(m);
    }, onFailure);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * WOLF's protective path on the sim while ticks (with their movers and scanner scans) run back to
 * back: a position is opened and adopted, a price at −40 % ROE is pushed, and the time from that price
 * reaching WOLF to the signed close order leaving for the exchange (checked to carry `r: true`) is
 * measured, and to its execution by the sim. The sim runs in this process, so its work for the scans
 * competes with WOLF's for the same event loop (a remote exchange would not).
 */
export default async function (r: BenchReporter): Promise<void> {
  // The per-IP weight limit is off: it times protection in a loop, past one IP's 1200 weight a minute.
  const world = await startSimWorld({ ipWeightLimit: false, seed: 21 });
  const key = generatePrivateKey();
  const me = privateKeyToAccount(key).address.toLowerCase();
  const client = await HlClient.create({
    network: "paper",
    apiUrl: world.url,
    wsUrl: world.wsUrl,
    privateKey: key,
    env: { DATA_DIR: mkdtempSync(join(tmpdir(), "wolf-bench-key-")) },
    retry: { attempts: 1 },
  });
  await client.clearinghouseState();
  const port = new WatchedPort(client);
  let closeExecutedAt = 0;
  let armed = false;
  const off = world.venue.subscribe((e) => {
    if (armed && e.kind === "userFills" && e.user.toLowerCase() === me && closeExecutedAt === 0)
      closeExecutedAt = performance.now();
  });
  // The moment the signed close leaves for the exchange, and what it says on the wire.
  let closeSentAt = 0;
  const wireReduceOnly: boolean[] = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (armed && closeSentAt === 0 && url.endsWith("/exchange") && typeof init?.body === "string") {
      closeSentAt = performance.now();
      const body = JSON.parse(init.body) as { action?: { orders?: { r?: boolean }[] } };
      wireReduceOnly.push(body.action?.orders?.[0]?.r === true);
    }
    return realFetch(input, init);
  };
  const runner = await WolfRunner.open({
    port,
    dataDir: mkdtempSync(join(tmpdir(), "wolf-bench-")),
    preset: "default",
    config: buildWolfConfig(
      "default",
      {},
      {
        leverage: 10,
        candle_refresh_s: 0,
        scanner_interval_ticks: 1, // a full scan on every tick
        reconcile_interval_ticks: 1_000_000, // slots are adopted by the bench, between ticks' work
        daily_loss_limit: 1_000_000_000,
        // The exchange stop rests (and is placed and cancelled with every position) but beyond the
        // bench's −40 % gap, so what is timed is the client path's close.
        backstop_margin_pct: 10,

        // Scans run, but nothing is entered: every position here is the bench's own.
        excluded_instruments: DEFAULT_MARKETS.map((m) => coinToInstrument(m.name)),
      },
    ),
    log: (l) => (process.env.WOLF_BENCH_LOG ? console.log(l) : undefined),
  });
  let ticking = true;
  let scanning = false;
  const ticks = (async () => {
    while (ticking) {
      scanning = true;
      await runner.tick();
      scanning = false;
      await sleep(1);
    }
  })();

  const samples: number[] = [];
  const executed: number[] = [];
  let duringScan = 0;
  try {
    await sleep(300); // the stream attaches
    for (let i = 0; i < 40; i++) {
      const long = i % 2 === 0;
      const opened = await client.marketOrder({
        instrument: "ETH-PERP",
        side: long ? "buy" : "sell",
        size: "0.5",
      });
      if (opened.status !== "filled") throw new Error(`bench entry did not fill: ${JSON.stringify(opened)}`);
      await runner.reconcile();
      await runner.settled(); // the adopted slot's exchange stop is placed before the breach
      const slot = runner.state.slots.find((s) => s.coin === "ETH" && s.status === "active");
      if (!slot)
        throw new Error(
          `the bench position was not adopted: ${JSON.stringify((await client.clearinghouseState()).assetPositions)} ${JSON.stringify(runner.state.slots.map((s) => [s.status, s.coin]))}`,
        );
      const limit = Number(slot.entry_price) * (long ? 0.96 : 1.04); // −40 % ROE at 10x
      port.breachSeenAt = 0;
      closeExecutedAt = 0;
      closeSentAt = 0;
      port.breach = (m) => m.ETH !== undefined && (long ? Number(m.ETH) <= limit : Number(m.ETH) >= limit);
      armed = true;
      if (scanning) duringScan++;
      world.setPrice("ETH", String(limit * (long ? 0.995 : 1.005)));
      const deadline = performance.now() + 5_000;
      while (
        (closeExecutedAt === 0 || runner.state.slots[slot.slot_id]!.status !== "empty") &&
        performance.now() < deadline
      )
        await sleep(1);
      armed = false;
      port.breach = undefined;
      if (closeExecutedAt === 0 || closeSentAt === 0 || port.breachSeenAt === 0)
        throw new Error("no close within 5 s of the breach");
      samples.push(closeSentAt - port.breachSeenAt);
      executed.push(closeExecutedAt - port.breachSeenAt);
      await sleep(20);
    }
  } finally {
    ticking = false;
    await ticks;
    off();
    globalThis.fetch = realFetch;
    await runner.close();
    await client.close();
    await world.close();
  }
  if (wireReduceOnly.some((r) => !r)) throw new Error("a close went out without r: true");
  r.figure({
    name: `WOLF breach → close order sent, p99 (${samples.length} breaches, ${duringScan} mid-scan)`,
    value: percentile(samples, 99),
    unit: "ms",
    target: { op: "<", value: 50 },
  });
  r.figure({ name: "WOLF breach → close order sent, p50", value: percentile(samples, 50), unit: "ms" });
  r.figure({
    name: "WOLF breach → close executed by the sim, p99",
    value: percentile(executed, 99),
    unit: "ms",
  });
}
