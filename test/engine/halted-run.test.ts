import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runStrategy } from "../../src/engine/runner.ts";
import { RateBudget } from "../../src/exchange/budget.ts";
import { HlClient } from "../../src/exchange/client.ts";
import type { ExchangeAction } from "../../src/sim/venue.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";

/** `hl run` on a market the exchange delists while it runs, in-process against the sim world. */
describe("hl run on a market the exchange halted", () => {
  let world: SimWorld;
  beforeAll(async () => {
    // No house: the only book is the one resting orders below leave, which stays after the halt.
    world = await startSimWorld({ port: 0, seed: 7, houseMakers: false, historyDays: 0, liveCoins: ["ETH"] });
  });
  afterAll(async () => {
    await world.close();
  });

  const client = (dir: string) =>
    HlClient.create({
      network: "paper",
      apiUrl: world.url,
      env: { DATA_DIR: dir },
      budget: new RateBudget({ weightPerMinute: 1e9 }),
    });

  it("sends the refused order once, then none for the cooldown, and says so in one line", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hl-halted-run-"));
    const maker = await client(join(dir, "maker"));
    await maker.clearinghouseState(); // a first look opens the paper account with its starting balance
    const mid = Number((await maker.allMids()).ETH);
    for (const [side, px] of [
      ["buy", mid * 0.999],
      ["sell", mid * 1.001],
    ] as const) {
      const r = await maker.order({
        instrument: "ETH-PERP",
        side,
        size: "1",
        price: px.toFixed(1),
        tif: "Gtc",
      });
      expect(r.status).toBe("resting");
    }
    const c = await client(join(dir, "runner"));
    await c.clearinghouseState();
    const user = c.address!.toLowerCase();
    // Orders from the runner's wallet that reach the exchange, counted from the delisting on.
    let received: number | undefined;
    const exchange = world.venue.exchange.bind(world.venue);
    world.venue.exchange = (action: ExchangeAction, from, nonce) => {
      if (received !== undefined && from.toLowerCase() === user && action.type === "order")
        received += (action.orders as unknown[]).length;
      return exchange(action, from, nonce);
    };
    // The engine's clock: each tick after the delisting is five minutes later, past any short cooldown.
    let later = 0;
    const lines: string[] = [];
    const r = await runStrategy({
      strategy: "aggressive_taker",
      instrument: "ETH-PERP",
      tickSeconds: 0,
      maxTicks: 8,
      mock: false,
      dryRun: false,
      network: "paper",
      resume: false,
      dataDir: join(dir, "cli"),
      params: { size: 0.01, bias_amplitude: 0 },
      client: c,
      now: () => Date.now() + later,
      log: (l) => {
        lines.push(l);
        // The exchange delists the market once the run has traded it.
        if (/\bT1 ETH/.test(l)) {
          world.venue.delist("ETH");
          received = 0;
        }
        if (received !== undefined && /\bT\d ETH/.test(l)) later += 5 * 60_000;
      },
    });
    expect(r.stats.total_filled).toBeGreaterThan(0); // it traded before the delisting
    // One batch refused (aggressive_taker sends a buy and a sell), then nothing for 35 minutes.
    expect(received).toBe(2);
    const said = lines.filter((l) => /halted/i.test(l) && !/exchange refused:/.test(l));
    expect(said).toEqual([
      "T2 ETH-PERP: the exchange has halted trading (Trading is halted.); no new orders for 60 min, closing orders tried once a minute",
    ]);
  }, 20_000);
});
