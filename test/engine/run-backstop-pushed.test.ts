import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generatePrivateKey } from "viem/accounts";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import type { RunResult } from "../../src/engine/engine.ts";
import { runStrategy } from "../../src/engine/runner.ts";
import { HlClient } from "../../src/exchange/index.ts";
import { isBackstopCloid } from "../../src/guard/backstop.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let world: SimWorld;
const clients: HlClient[] = [];

beforeAll(async () => {
  world = await startSimWorld({ ipWeightLimit: false, historyDays: 0, liveCoins: ["ETH"], seed: 23 });
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await world.close();
});

async function account(key: `0x${string}`): Promise<HlClient> {
  const c = await HlClient.create({
    network: "paper",
    apiUrl: world.url,
    wsUrl: world.wsUrl,
    privateKey: key,
    env: { DATA_DIR: mkdtempSync(join(tmpdir(), "hl-pushed-key-")) },
  });
  clients.push(c);
  await c.clearinghouseState(); // the sim opens (and funds) the account at its first read
  return c;
}

/** Polls `probe` every 25 ms until it answers, for at most `ms`. */
async function within<T>(ms: number, probe: () => Promise<T | undefined>): Promise<T | undefined> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined || Date.now() > until) return v;
    await sleep(25);
  }
}

/**
 * A `simple_mm` run with a DSL stop and minute-long ticks, its first tick's bid filled between ticks
 * (the market dropped through it) and its exchange stop resting for the position.
 */
async function runWithFilledBid() {
  const key = generatePrivateKey();
  const dir = mkdtempSync(join(tmpdir(), "hl-pushed-"));
  const stop = new AbortController();
  const lines: string[] = [];
  const runner = await account(key);
  const restFillReads = vi.spyOn(runner, "userFillsSince");
  // Minute-long ticks: the run's first tick quotes, the next one is a minute away.
  const run: Promise<RunResult> = runStrategy({
    strategy: "simple_mm",
    instrument: "ETH-PERP",
    tickSeconds: 60,
    maxTicks: 0,
    mock: true,
    dryRun: false,
    resume: false,
    dataDir: join(dir, "cli"),
    client: runner,
    env: { DATA_DIR: dir },
    params: { spread_bps: 2, base_size: 0.1 },
    dsl: { preset: "moderate", overrides: {} },
    signal: stop.signal,
    log: (l) => lines.push(l),
  });
  const tick1 = await within(5_000, async () => lines.find((l) => /^\[.*\] T1 /.test(l)));
  expect(tick1, lines.join("\n")).toContain("2 sent");
  const bid = await within(0, async () =>
    (await runner.frontendOpenOrdersAllDexes()).find(
      (o) => o.coin === "ETH" && o.side === "B" && !o.isTrigger,
    ),
  );
  expect(bid, lines.join("\n")).toBeDefined();
  // The market drops through the run's bid: the house's quotes cross it, and the quote fills between
  // the run's ticks (another account's IOC raced the house's requotes and missed the bid under load).
  const restBefore = restFillReads.mock.calls.length;
  world.setPrice("ETH", (Number(bid!.limitPx) * 0.995).toFixed(1));
  const held = async () =>
    (await runner.clearinghouseState()).assetPositions.find((a) => a.position.coin === "ETH")?.position.szi;
  expect(
    await within(2_000, async () => (Number(await held()) > 0 ? true : undefined)),
    lines.join("\n"),
  ).toBe(true);
  // The run's exchange stop covers the whole position long before the next tick (a minute away).
  const stopOrder = await within(2_000, async () =>
    (await runner.frontendOpenOrdersAllDexes()).find((o) => o.isTrigger && isBackstopCloid("run", o.cloid)),
  );
  expect(stopOrder, lines.join("\n")).toBeDefined();
  expect(stopOrder).toMatchObject({ side: "A", reduceOnly: true, sz: await held() });
  return {
    runner,
    run,
    stop,
    lines,
    held,
    stopOrder: stopOrder!,
    restFills: () => restFillReads.mock.calls.length - restBefore,
  };
}

it("hl run --dsl: a resting quote filled between two ticks gets its exchange stop at once, not a tick later", async () => {
  const { run, stop, lines, held, restFills } = await runWithFilledBid();
  // The fill came from the account's stream: no REST read of fills for it.
  expect(restFills()).toBe(0);
  // No strategy tick ran for it, and a stop still ends the run at once (not at the next tick, past
  // this test's time limit).
  stop.abort();
  const result = await run;
  expect(result.tickCount).toBe(1);
  expect(result.position.net_qty).toBe(await held());
  expect(lines.filter((l) => /fail|could not/i.test(l))).toEqual([]);
}, 15_000);

it("hl run --dsl: the exchange stop filling between two ticks cancels the quotes and ends the run at once, not a tick later", async () => {
  const { runner, run, stop, lines, held, stopOrder } = await runWithFilledBid();
  // The market falls through the exchange stop: it fills on the exchange, the stream pushes its fill.
  world.setPrice("ETH", (Number(stopOrder.triggerPx) * 0.99).toFixed(1));
  const ended = await Promise.race([run, sleep(5_000).then(() => undefined)]);
  const quotes = (await runner.frontendOpenOrdersAllDexes()).filter((o) => o.coin === "ETH");
  if (!ended) stop.abort();
  const result = ended ?? (await run);
  expect(ended, lines.join("\n")).toBeDefined();
  expect(await held()).toBeUndefined();
  // The run's quotes went with it, and the stop's own order is gone (filled).
  expect(quotes, lines.join("\n")).toEqual([]);
  expect(result).toMatchObject({ stopReason: "dsl_stop", dslReason: "exchange stop", tickCount: 1 });
  expect(result.position.net_qty).toBe("0");
  expect(lines.join("\n")).toMatch(/the exchange stop filled: sell [\d.]+ at [\d.]+; position now 0/);
  expect(lines.join("\n")).toContain("the exchange stop closed the position; stopping the strategy");
  expect(lines.filter((l) => /fail|could not/i.test(l))).toEqual([]);
}, 15_000);
