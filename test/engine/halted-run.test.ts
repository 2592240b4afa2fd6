import { mkdtempSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runStrategy } from "../../src/engine/runner.ts";
import { RateBudget } from "../../src/exchange/budget.ts";
import { HlClient } from "../../src/exchange/client.ts";
import type { ExchangeAction } from "../../src/sim/venue.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";

/** `hl run` holding a position on a market the exchange delists while it runs, in-process. */
describe("hl run on a market the exchange delists", () => {
  let world: SimWorld;
  let hook: Server;
  let hookUrl = "";
  const alerts: { event: string; text: string }[] = [];
  beforeAll(async () => {
    // No house: the only book is the one the maker below leaves.
    world = await startSimWorld({
      port: 0,
      seed: 7,
      houseMakers: false,
      historyDays: 0,
      liveCoins: ["ETH", "BTC", "SOL"],
    });
    hook = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString();
      });
      req.on("end", () => {
        alerts.push(JSON.parse(body) as { event: string; text: string });
        res.end("ok");
      });
    });
    await new Promise<void>((r) => hook.listen(0, "127.0.0.1", r));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    await new Promise((r) => hook.close(r));
    await world.close();
  });

  const client = (dir: string) =>
    HlClient.create({
      network: "paper",
      apiUrl: world.url,
      env: { DATA_DIR: dir },
      budget: new RateBudget({ weightPerMinute: 1e9 }),
    });

  it("records the settlement fill, sends nothing more, stops and alerts once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hl-delisted-run-"));
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
    let settlementPx = "";
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
      dataDir: join(dir, "runner", "cli"),
      // Buys 0.085 and sells 0.015 on its first tick: long 0.07.
      params: { size: 0.1 },
      client: c,
      env: { HL_ALERT_WEBHOOK: hookUrl },
      log: (l) => {
        lines.push(l);
        // The exchange delists the market once the run holds a position there.
        if (/\bT1 ETH/.test(l) && received === undefined) {
          settlementPx = world.venue.delist("ETH").settlementPx;
          received = 0;
        }
      },
    });
    expect(r.stats.total_filled).toBeGreaterThan(0); // it traded before the delisting
    expect(received).toBe(0);
    expect(r.stopReason).toBe("delisted");
    expect(r.position.net_qty).toBe("0");
    // The settlement is in the run's trade log, at the settlement price.
    const trades = readFileSync(join(dir, "runner", "cli", "trades.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { side: string; price: string; quantity: string; fee: string });
    expect(trades.at(-1)).toMatchObject({ side: "sell", price: settlementPx, quantity: "0.07", fee: "0" });
    const said = lines.filter((l) => /delisted/i.test(l));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(
      /^T\d ETH-PERP: the exchange delisted the market and settled the position 0\.07 at (\S+); no order can be placed there again, stopping$/,
    );
    expect(said[0]).toContain(` at ${settlementPx};`);
    const sent = alerts.filter((a) => /delisted/.test(a.text));
    expect(sent.map((a) => a.event)).toEqual(["halt"]);
  }, 20_000);

  it("a flat run quoting a market the exchange delists sees its quotes gone, asks meta, and stops once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hl-delisted-flat-"));
    const maker = await client(join(dir, "maker"));
    await maker.clearinghouseState();
    const mid = Number((await maker.allMids()).BTC);
    // A wide book: the run's quotes rest inside it and never fill.
    for (const [side, px] of [
      ["buy", mid * 0.98],
      ["sell", mid * 1.02],
    ] as const) {
      const r = await maker.order({
        instrument: "BTC-PERP",
        side,
        size: "0.01",
        price: px.toFixed(0),
        tif: "Gtc",
      });
      expect(r.status).toBe("resting");
    }
    const c = await client(join(dir, "runner"));
    await c.clearinghouseState();
    const lines: string[] = [];
    const r = await runStrategy({
      strategy: "simple_mm",
      instrument: "BTC-PERP",
      tickSeconds: 0,
      maxTicks: 6,
      mock: false,
      dryRun: false,
      network: "paper",
      resume: false,
      dataDir: join(dir, "runner", "cli"),
      params: { base_size: 0.001 },
      client: c,
      log: (l) => {
        lines.push(l);
        if (/\bT1 BTC/.test(l) && !lines.some((x) => x.includes("delisted"))) world.venue.delist("BTC");
      },
    });
    expect(r.stopReason).toBe("delisted");
    expect(r.stats.total_filled).toBe(0);
    expect(lines.filter((l) => /delisted/.test(l))).toEqual([
      "T2 BTC-PERP: the exchange delisted the market; no order can be placed there again, stopping",
    ]);
  }, 20_000);

  it("--dry-run holding a paper position on a market the exchange delists stops once instead of waiting for ever", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hl-delisted-dry-"));
    const maker = await client(join(dir, "maker"));
    await maker.clearinghouseState();
    const mid = Number((await maker.allMids()).SOL);
    for (const [side, px] of [
      ["buy", mid * 0.999],
      ["sell", mid * 1.001],
    ] as const) {
      const r = await maker.order({
        instrument: "SOL-PERP",
        side,
        size: "50",
        price: px.toFixed(2),
        tif: "Gtc",
      });
      expect(r.status).toBe("resting");
    }
    const c = await client(join(dir, "runner"));
    await c.clearinghouseState();
    const lines: string[] = [];
    const r = await runStrategy({
      strategy: "aggressive_taker",
      instrument: "SOL-PERP",
      tickSeconds: 0,
      maxTicks: 12,
      mock: false,
      dryRun: true,
      network: "paper",
      resume: false,
      dataDir: join(dir, "runner", "cli"),
      params: { size: 1 },
      client: c,
      log: (l) => {
        lines.push(l);
        if (/\bT1 SOL/.test(l) && !lines.some((x) => x.includes("delisted"))) world.venue.delist("SOL");
      },
    });
    expect(r.stopReason).toBe("delisted");
    expect(r.ticks).toBeLessThan(12);
    const said = lines.filter((l) => /delisted/.test(l));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(
      /^T\d+ SOL-PERP: the exchange delisted the market; the position 0\.7 still shows no settlement; no order can be placed there again, stopping$/,
    );
  }, 20_000);
});
