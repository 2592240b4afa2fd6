import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { dec, wire } from "../../src/core/decimal.ts";
import { dryRunPaperOptions } from "../../src/engine/dry-run-account.ts";
import { HlMarketData } from "../../src/engine/hl-adapter.ts";
import { runStrategy } from "../../src/engine/runner.ts";
import { readKvFile } from "../../src/engine/state-store.ts";
import { statusFromKv } from "../../src/engine/status.ts";
import { RateBudget } from "../../src/exchange/budget.ts";
import { HlClient } from "../../src/exchange/client.ts";
import { fillFee } from "../../src/sim/venue/fee-rates.ts";
import type { Address } from "../../src/sim/venue.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { STRATEGY_IDS } from "../../src/strategies/catalog.ts";
import { scratchDirs } from "../support/scratch-dirs.ts";
import { FakeLlm } from "./fake-llm.ts";

/** Paper runs of the real engine, in-process, against the sim world over HTTP (fast tick, own accounts). */
describe("paper runs on the sim world", () => {
  let world: SimWorld;
  const dirs = scratchDirs();
  beforeAll(async () => {
    // At 30× the whole universe would starve the engine of CPU; the runs trade ETH and VXX.
    // Needs the exchange's per-IP weight limit off: runs of 200 ticks at full speed on a 30× sim spend more than
    // one IP's 1200 a minute. The per-address limit stays on.
    world = await startSimWorld({
      ipWeightLimit: false,
      port: 0,
      seed: 11,
      speed: 30,
      liveCoins: ["BTC", "ETH", "yex:VXX"],
    });
  });
  afterAll(async () => {
    await world.close();
    dirs.cleanup();
  });

  /** A client with its own paper wallet (its own sim account) and no request-weight throttling. */
  async function client(dir: string): Promise<HlClient> {
    return HlClient.create({
      network: "paper",
      apiUrl: world.url,
      env: { DATA_DIR: dir },
      budget: new RateBudget({ weightPerMinute: 1e9 }),
    });
  }

  it("simple_mm: 200 ticks place, rest and fill orders without a failed tick", async () => {
    const dir = dirs.make("hl-sim-run-");
    const lines: string[] = [];
    const r = await runStrategy({
      strategy: "simple_mm",
      instrument: "eth-perp",
      tickSeconds: 0,
      maxTicks: 200,
      mock: true,
      dryRun: false,
      resume: false,
      dataDir: join(dir, "cli"),
      params: { spread_bps: 4 },
      client: await client(dir),
      log: (l) => lines.push(l),
    });
    expect(lines.filter((l) => l.includes("failed"))).toEqual([]);
    expect(r.ticks).toBe(200);
    expect(r.stats.total_placed).toBeGreaterThan(2);
    expect(r.stats.total_filled).toBeGreaterThan(0);
    const kv = readKvFile(join(dir, "cli", "state.db"));
    // Every order batch went through the pending store (saved before sending, cleared on its answer).
    expect(JSON.parse(kv.pending_orders ?? "null")).toEqual([]);
    const status = statusFromKv(kv);
    expect(status).toMatchObject({
      status: "running",
      engine: "simple_mm",
      instrument: "ETH-PERP",
      tick_count: 200,
    });
    const trades = readFileSync(join(dir, "cli", "trades.jsonl"), "utf8")
      .trim()
      .split("\n");
    expect(trades).toHaveLength(r.stats.total_filled);
  }, 120_000);

  /**
   * What each strategy needs to act within 200 ticks. Quoting and taking strategies trade in any
   * market; signal, arb, risk, rfq and LLM strategies act only when their condition appears, so their
   * thresholds are lowered to what the sim's market shows (every decision still runs the real rule),
   * hedge_agent starts with an inventory to hedge, and llm_agent talks to a local fake provider.
   */
  const scenarios: Record<
    string,
    { params?: Record<string, number>; before?: (c: HlClient) => Promise<void> }
  > = {
    // The sim's funding sits near the 0.00125 %/h interest rate, ~1,100 bps a year.
    basis_arb: { params: { basis_threshold_bps: 100, size: 0.5 } },
    funding_arb: { params: { divergence_threshold_bps: 0.0001 } },
    mean_reversion: { params: { window: 5, threshold_bps: 0.5, size: 0.2, max_position: 1 } },
    momentum_breakout: {
      params: {
        lookback: 5,
        breakout_threshold_bps: 0.1,
        volume_surge_mult: 0.01,
        trailing_stop_bps: 2,
        size: 0.2,
      },
    },
    rfq_agent: { params: { spread_bps: 2, min_size: 0.2 } },
    hedge_agent: {
      params: { inventory_threshold: 0, notional_threshold: 0, max_hedge_size: 0.5 },
      before: async (c) => {
        await c.clearinghouseState(); // a first look opens the paper account with its starting balance
        const price = await c.marketablePrice("ETH-PERP", "buy", { reference: "touch", slippage: "0.01" });
        const r = await c.order({ instrument: "ETH-PERP", side: "buy", size: "2", price, tif: "Ioc" });
        expect(r).toMatchObject({ status: "filled" });
      },
    },
  };

  it("every other strategy runs 200 ticks on the sim without a failed tick, placing and filling orders", async () => {
    const { findStrategy } = await import("../../src/strategies/catalog.ts");
    const llm = await new FakeLlm().start();
    // A model that trades: a marketable order inside the price band, alternating sides.
    let calls = 0;
    llm.reply = () => {
      const prompt = JSON.stringify(llm.requests.at(-1)?.body ?? {});
      const band = /Price band: within [\d.]+ bps of mid \(([\d.]+) to ([\d.]+)\)/.exec(prompt);
      if (!band) return { name: "hold", args: { reasoning: "no band in the prompt" } };
      const mid = (Number(band[1]) + Number(band[2])) / 2;
      const side = calls++ % 2 === 0 ? "buy" : "sell";
      const price = Number((side === "buy" ? mid * 1.004 : mid * 0.996).toFixed(1));
      return { name: "place_order", args: { side, size: 0.05, price, reasoning: "test flow" } };
    };
    try {
      const ids = STRATEGY_IDS.filter((s) => s !== "simple_mm");
      const results = await Promise.all(
        ids.map(async (id) => {
          const dir = dirs.make(`hl-sim-${id}-`);
          const lines: string[] = [];
          const c = await client(dir);
          const scenario = scenarios[id] ?? {};
          await scenario.before?.(c);
          const r = await runStrategy({
            strategy: id,
            instrument: "ETH-PERP",
            tickSeconds: 0,
            maxTicks: 200,
            mock: true,
            dryRun: false,
            resume: false,
            dataDir: join(dir, "cli"),
            params: scenario.params ?? {},
            client: c,
            log: (l) => lines.push(l),
            ...(id === "llm_agent"
              ? { env: { ANTHROPIC_API_KEY: "test-key", LLM_BASE_URL: llm.url, DATA_DIR: dir } }
              : {}),
          });
          return { id, type: findStrategy(id)!.type, r, failed: lines.filter((l) => /failed|error/.test(l)) };
        }),
      );
      expect(results.map((x) => x.id).sort()).toEqual(
        [...STRATEGY_IDS].filter((s) => s !== "simple_mm").sort(),
      );
      for (const { id, r, failed } of results) {
        expect({ id, failed }).toEqual({ id, failed: [] });
        expect({ id, ticks: r.ticks }).toEqual({ id, ticks: 200 });
        expect({ id, placed: r.stats.total_placed > 0 }).toEqual({ id, placed: true });
        expect({ id, filled: r.stats.total_filled > 0 }).toEqual({ id, filled: true });
      }
      expect(calls).toBeGreaterThan(0);
    } finally {
      await llm.close();
    }
  }, 240_000);

  it("market data carries funding, open interest and a multi-level book (predecessor's were 0)", async () => {
    const m = new HlMarketData(await client(dirs.make("hl-sim-md-")), {
      assetContext: true,
      candles: true,
    });
    const s = await m.snapshot("ETH-PERP");
    expect(s.mid).toBeGreaterThan(0);
    expect(s.bid).toBeLessThan(s.ask);
    expect(s.book.bids.length).toBeGreaterThan(1);
    expect(s.openInterest).toBeGreaterThan(0);
    expect(Number.isFinite(s.fundingRate)).toBe(true);
    expect(s.timestampMs).toBeGreaterThan(0);
    expect((await m.spec("vxx-usdyp")).instrument).toBe("VXX-USDYP");
  });

  it("--dry-run: real book, local fills, nothing sent to the exchange", async () => {
    const dir = dirs.make("hl-sim-dry-");
    const c = await client(dir);
    const r = await runStrategy({
      strategy: "aggressive_taker",
      instrument: "ETH-PERP",
      tickSeconds: 0,
      maxTicks: 3,
      mock: false,
      dryRun: true,
      network: "paper",
      resume: false,
      dataDir: join(dir, "cli"),
      client: c,
      log: () => undefined,
    });
    expect(r.stats.total_filled).toBeGreaterThan(0);
    expect(await c.userFills()).toEqual([]);
    const account = await c.clearinghouseState();
    expect(account.assetPositions).toEqual([]);
  });

  it("--dry-run --dsl: the position's backstop rests in the paper book, none on the exchange", async () => {
    const dir = dirs.make("hl-sim-dry-dsl-");
    const c = await client(dir);
    const lines: string[] = [];
    await runStrategy({
      strategy: "aggressive_taker",
      instrument: "ETH-PERP",
      tickSeconds: 0,
      maxTicks: 3,
      mock: false,
      dryRun: true,
      network: "paper",
      resume: false,
      dataDir: join(dir, "cli"),
      dsl: { preset: "moderate", overrides: {} },
      client: c,
      log: (l) => lines.push(l),
    });
    expect(lines.join("\n")).toMatch(
      /backstop ETH: (long|short) [\d.]+ protected by a stop at [\d.]+ \(oid \d+\)/,
    );
    expect(await c.frontendOpenOrdersAllDexes()).toEqual([]);
    expect(await c.userFills()).toEqual([]);
  });

  it("--dry-run margins orders with the wallet's real account value, leverage and asset id", async () => {
    const dir = dirs.make("hl-sim-dry-account-");
    const c = await client(dir);
    const user = c.address!;
    await c.clearinghouseState();
    // $1,000 at 3×: a 1 ETH IOC (about $3,400) needs about $1,133 of margin, which live would refuse.
    // The paper book's old defaults ($10,000 at 20×) margined it easily.
    world.venue.withdraw(user, "9000");
    await c.updateLeverage({ instrument: "ETH-PERP", leverage: 3 });
    const lines: string[] = [];
    const r = await runStrategy({
      strategy: "aggressive_taker",
      instrument: "ETH-PERP",
      tickSeconds: 0,
      maxTicks: 1,
      mock: false,
      dryRun: true,
      network: "paper",
      resume: false,
      dataDir: join(dir, "cli"),
      params: { size: 2, bias_amplitude: 0 },
      client: c,
      log: (l) => lines.push(l),
    });
    expect(r.stats.total_filled).toBe(0);
    expect(lines.join("\n")).toContain("Insufficient margin to place order. asset=1");
  });

  it("a delisted market is refused alike with and without --dry-run", async () => {
    const dir = dirs.make("hl-sim-delisted-");
    const c = await client(dir);
    const run = (dryRun: boolean) =>
      runStrategy({
        strategy: "aggressive_taker",
        instrument: "MATIC-PERP",
        tickSeconds: 0,
        maxTicks: 1,
        mock: false,
        dryRun,
        network: "paper",
        resume: false,
        dataDir: join(dir, dryRun ? "dry" : "live"),
        client: c,
        log: () => undefined,
      }).then(
        () => "ran",
        (err: Error) => err.message,
      );
    const [dry, live] = [await run(true), await run(false)];
    expect(dry).toBe(live);
    expect(dry).toMatch(/MATIC/);
  });

  it("hl run on a HIP-3 market turns dex abstraction on for a new account, as it must live; a user's standard mode with nothing on the dex stops it at start", async () => {
    const dir = dirs.make("hl-sim-run-hip3-");
    const c = await client(dir);
    const lines: string[] = [];
    const run = (dataDir: string, runClient: HlClient) =>
      runStrategy({
        strategy: "simple_mm",
        instrument: "VXX-USDYP",
        tickSeconds: 0,
        maxTicks: 5,
        mock: true,
        dryRun: false,
        resume: false,
        dataDir,
        params: { spread_bps: 20 },
        client: runClient,
        log: (l) => lines.push(l),
      });
    const r = await run(join(dir, "cli"), c);
    expect(await c.userDexAbstraction()).toBe(true);
    // an account setting changed on the user's behalf is said
    expect(lines.filter((l) => l.includes("turned HIP-3 dex abstraction on"))).toHaveLength(1);
    expect(lines.filter((l) => l.includes("Insufficient margin"))).toEqual([]);
    expect(r.stats.total_placed).toBeGreaterThan(0);
    const other = dirs.make("hl-sim-run-hip3-std-");
    const std = await client(other);
    await std.clearinghouseState(); // the paper account's deposit
    await std.exchangeClient!.userSetAbstraction({ user: std.address!, abstraction: "disabled" });
    await expect(run(join(other, "cli"), std)).rejects.toThrow(/holds none on the yex dex/);
  });

  it("--dry-run on a HIP-3 market margins with the balance the exchange margins it with", async () => {
    const c = await client(dirs.make("hl-sim-dry-hip3-"));
    const main = await c.clearinghouseState();
    const vxx = await c.market("VXX-USDYP");
    // A new account (dex abstraction never set, nothing on yex): a live run turns dex abstraction on
    // before its first order, so the rehearsal margins yex from the main balance.
    expect(await c.userDexAbstraction()).toBeNull();
    const options = await dryRunPaperOptions(c, vxx);
    expect(options.balanceUsd).toBe(main.marginSummary.accountValue);
    expect(Number(options.balanceUsd)).toBeGreaterThan(0);
    // Standard mode set by the user and nothing on yex: a live run could margin no order there and
    // stops at its start; so does the rehearsal.
    await c.exchangeClient!.userSetAbstraction({ user: c.address!, abstraction: "disabled" });
    await expect(dryRunPaperOptions(c, vxx)).rejects.toThrow(/holds none on the yex dex/);
    // yex's markets allow only isolated margin: the paper book margins them so.
    expect(options.isolated).toBe(true);
  });

  it("--dry-run margins isolated when the account's setting on the market is isolated", async () => {
    const c = await client(dirs.make("hl-sim-dry-isolated-"));
    await c.clearinghouseState();
    const eth = await c.market("ETH-PERP");
    expect(await dryRunPaperOptions(c, eth)).toMatchObject({ isolated: false, leverage: 20 });
    await c.updateLeverage({ instrument: "ETH-PERP", leverage: 7, cross: false });
    expect(await dryRunPaperOptions(c, eth)).toMatchObject({ isolated: true, leverage: 7 });
  });

  it("--dry-run takes the leverage of the account's position on the market from its state: activeAssetData only without one", async () => {
    const c = await client(dirs.make("hl-sim-dry-held-"));
    await c.clearinghouseState();
    const eth = await c.market("ETH-PERP");
    await c.updateLeverage({ instrument: "ETH-PERP", leverage: 5, cross: false });
    const leverageReads = vi.spyOn(c, "activeAssetData");
    expect(await dryRunPaperOptions(c, eth)).toMatchObject({ isolated: true, leverage: 5 });
    expect(leverageReads).toHaveBeenCalledTimes(1);
    expect(await c.marketOrder({ instrument: "ETH-PERP", side: "buy", size: "0.01" })).toMatchObject({
      status: "filled",
    });
    // Changed with the position open: its state shows the new setting, as activeAssetData would.
    await c.updateLeverage({ instrument: "ETH-PERP", leverage: 8, cross: false });
    expect(await dryRunPaperOptions(c, eth)).toMatchObject({ isolated: true, leverage: 8 });
    expect(leverageReads).toHaveBeenCalledTimes(1);
  });

  /**
   * `user` names a referral code on the world before it trades: the code's owner first takes $10k of
   * ETH from the house makers, as the exchange asks of a code's owner.
   */
  let referrers = 0;
  function refer(user: Address): void {
    referrers += 1;
    const owner = `0x7ef00000000000000000000000000000000001${String(referrers).padStart(2, "0")}` as Address;
    const code = `DRYFEES${referrers}`;
    const v = world.venue;
    let nonce = Date.now();
    v.info({ type: "clearinghouseState", user: owner });
    const mid = Number((v.info({ type: "allMids" }) as Record<string, string>).ETH);
    const limit = String(Number((mid * 1.05).toPrecision(5)));
    const order = { a: 1, b: true, p: limit, s: "8", r: false, t: { limit: { tif: "Ioc" as const } } };
    expect(v.exchange({ type: "order", orders: [order], grouping: "na" }, owner, nonce++).status).toBe("ok");
    expect(v.exchange({ type: "registerReferrer", code }, owner, nonce++)).toMatchObject({
      status: "ok",
    });
    expect(v.exchange({ type: "setReferrer", code }, user, nonce++)).toMatchObject({
      status: "ok",
    });
  }

  it("--dry-run charges the account's own fees: a referred account's, on the main dex and on a HIP-3 dex, as the sim charges it", async () => {
    const c = await client(dirs.make("hl-sim-dry-fees-"));
    await c.clearinghouseState();
    refer(c.address!);
    const eth = await dryRunPaperOptions(c, await c.market("ETH-PERP"));
    const vxx = await dryRunPaperOptions(c, await c.market("VXX-USDYP"));
    // The base tier less the 4 % referral discount; yex's deployer fee scale 1 doubles it.
    expect(eth.fees).toEqual({ taker: "0.000432", maker: "0.000144" });
    expect(vxx.fees).toEqual({ taker: "0.000864", maker: "0.000288" });
    // The same fills, taken on the sim: each fee is what the paper book would charge for it (yex
    // margined from the main balance, as a live run makes it before its first order there).
    await c.enableDexAbstraction();
    for (const instrument of ["ETH-PERP", "VXX-USDYP"]) {
      const size = instrument === "ETH-PERP" ? "0.01" : "1";
      expect((await c.marketOrder({ instrument, side: "buy", size })).status).toBe("filled");
    }
    const fills = await c.userFills();
    expect(fills.length).toBeGreaterThanOrEqual(2);
    for (const f of fills) {
      const rate = f.coin === "ETH" ? eth.fees!.taker : vxx.fees!.taker;
      expect(f.fee, f.coin).toBe(wire(fillFee(dec(f.px).times(f.sz), rate)));
    }
  });

  it("--dry-run with the builder code a live run would attach: its fee on every fill, and no referral discount", async () => {
    const c = await client(dirs.make("hl-sim-dry-builder-"));
    await c.clearinghouseState();
    refer(c.address!);
    const builder: Address = "0x7ef0000000000000000000000000000000000b01";
    world.venue.info({ type: "clearinghouseState", user: builder });
    await c.approveBuilderFee({ builder, maxFeeTenthsBps: 100 });
    // What the session does for a live run once the account approved the builder.
    c.useBuilder({ address: builder, feeTenthsBps: 100 });
    const eth = await dryRunPaperOptions(c, await c.market("ETH-PERP"));
    expect(eth.fees).toEqual({ taker: "0.00045", maker: "0.00015" });
    expect(eth.builderFeeRate).toBe("0.001");
    expect((await c.marketOrder({ instrument: "ETH-PERP", side: "buy", size: "0.01" })).status).toBe(
      "filled",
    );
    const [f] = await c.userFills();
    const ntl = dec(f!.px).times(f!.sz);
    expect(f!.builderFee).toBe(wire(fillFee(ntl, "0.001")));
    expect(f!.fee).toBe(wire(fillFee(ntl, eth.fees!.taker).plus(fillFee(ntl, eth.builderFeeRate!))));
  });

  it("--dry-run falls back to a new account's fees, with one line, when userFees cannot be read", async () => {
    const c = await client(dirs.make("hl-sim-dry-fees-down-"));
    await c.clearinghouseState();
    c.userFees = () => Promise.reject(new Error("Failed to query Hyperliquid: 503"));
    const lines: string[] = [];
    const eth = await dryRunPaperOptions(c, await c.market("ETH-PERP"), (line) => lines.push(line));
    expect(eth.fees).toEqual({ taker: "0.00045", maker: "0.00015" });
    expect(eth.balanceUsd).toBe((await c.clearinghouseState()).marginSummary.accountValue);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/userFees: Failed to query Hyperliquid: 503.*taker 0\.00045, maker 0\.00015/);
  });
});
