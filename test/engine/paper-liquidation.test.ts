import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Engine } from "../../src/engine/engine.ts";
import { PaperGateway } from "../../src/engine/paper-gateway.ts";
import type { MarketDataPort } from "../../src/engine/ports.ts";
import { DEFAULT_RISK_LIMITS } from "../../src/engine/risk.ts";
import { readKvFile } from "../../src/engine/state-store.ts";
import { DEFAULT_MARKETS } from "../../src/sim/venue/index.ts";
import { type AnyStrategy, defineStrategy } from "../../src/strategies/sdk.ts";
import { ALICE, BOB, BTC, CAROL, T0, type TestVenue, testVenue } from "../sim/venue/helpers.ts";
import { FakeMarket } from "./fake-market.ts";
import { btcSnapshot } from "./venue-book.ts";

const BTC_SPEC = DEFAULT_MARKETS[BTC]!;

/**
 * The sim's own partial-liquidation scenario (test/sim/venue/liquidation.test.ts), on both sides:
 * $6,000 and a 2.1 BTC long at 97,000 at 40× cross (about $204k); CAROL bids 95,290 below it.
 */
function bigLong(): { t: TestVenue; g: PaperGateway } {
  const t = testVenue({ balance: "6000" });
  t.venue.deposit(BOB, "100000");
  t.venue.deposit(CAROL, "1000000");
  t.ex(ALICE, { type: "updateLeverage", asset: BTC, isCross: true, leverage: 40 });
  t.order(BOB, { a: BTC, b: false, p: "97000", s: "2.1" });
  t.order(CAROL, { a: BTC, b: true, p: "95290", s: "5" });
  const g = new PaperGateway({ balanceUsd: "6000", leverage: 40 });
  g.describe("BTC-PERP", {
    szDecimals: BTC_SPEC.szDecimals,
    asset: BTC,
    maxLeverage: BTC_SPEC.maxLeverage,
    ...(BTC_SPEC.marginTableId !== undefined ? { marginTableId: BTC_SPEC.marginTableId } : {}),
  });
  g.observe(btcSnapshot(t, 97_000));
  return { t, g };
}

async function openLong(t: TestVenue, g: PaperGateway): Promise<void> {
  const [paper] = await g.place([
    {
      instrument: "BTC-PERP",
      cloid: "0x00000000000000000000000000000001",
      side: "buy",
      price: "97000",
      size: "2.1",
      tif: "Ioc",
      reduceOnly: false,
    },
  ]);
  expect(paper?.status).toBe("filled");
  t.order(ALICE, { a: BTC, b: true, p: "97000", s: "2.1", t: { limit: { tif: "Ioc" } } });
  expect((await g.position("BTC-PERP")).qty).toBe("2.1");
  expect(t.state(ALICE).assetPositions[0]!.position.szi).toBe("2.1");
}

/** The mark moves on both: the paper book reads the sim's book at that mark, then the sim checks. */
function moveTo(t: TestVenue, g: PaperGateway, mark: number, atMs: number): void {
  t.venue.setOraclePrice("BTC", String(mark));
  t.clock.now = atMs;
  g.observe(btcSnapshot(t, mark));
  t.venue.advance(t.clock.now);
}

const simLiquidations = (t: TestVenue) =>
  (t.venue.info({ type: "userFills", user: ALICE }) as Record<string, unknown>[])
    .filter((f) => f.liquidation !== undefined)
    .map((f) => ({ side: f.side === "B" ? "buy" : "sell", price: f.px, size: f.sz }))
    .reverse();

const paperLiquidations = async (g: PaperGateway) =>
  (await g.fills("BTC-PERP", 0))
    .filter((f) => f.liquidation !== undefined)
    .map((f) => ({ side: f.side, price: f.price, size: f.size }));

describe("the dry-run book liquidates as the exchange (the sim venue) does", () => {
  it("a $200k cross long whose mark passes its liquidation price loses 20 % to the book, as on the sim", async () => {
    const { t, g } = bigLong();
    await openLong(t, g);
    // Equity 2,338 < maintenance 2,502 (2.1 × 95,300 / 80): a market liquidation, partial above $100k.
    moveTo(t, g, 95_300, T0 + 1_000);
    expect((await g.position("BTC-PERP")).qty).toBe("1.68");
    expect(t.state(ALICE).assetPositions[0]!.position.szi).toBe("1.68");
    expect(await paperLiquidations(g)).toEqual([{ side: "sell", price: "95290", size: "0.42" }]);
    expect(await paperLiquidations(g)).toEqual(simLiquidations(t));
    const [fill] = (await g.fills("BTC-PERP", 0)).filter((f) => f.liquidation);
    expect(fill?.liquidation).toEqual({ method: "market", markPx: "95300" });
    // Healthy again: nothing more.
    moveTo(t, g, 95_300, T0 + 60_000);
    expect((await g.position("BTC-PERP")).qty).toBe("1.68");
  });

  it("within the 30 s cooldown the next liquidation sends the whole position, no better than the mark", async () => {
    const { t, g } = bigLong();
    await openLong(t, g);
    moveTo(t, g, 95_300, T0 + 1_000);
    moveTo(t, g, 94_200, T0 + 20_000);
    expect((await g.position("BTC-PERP")).qty).toBe("0");
    expect(t.state(ALICE).assetPositions).toEqual([]);
    expect(await paperLiquidations(g)).toEqual([
      { side: "sell", price: "95290", size: "0.42" },
      { side: "sell", price: "94200", size: "1.68" },
    ]);
    expect(await paperLiquidations(g)).toEqual(simLiquidations(t));
  });

  it("after the cooldown the next liquidation is partial again", async () => {
    const { t, g } = bigLong();
    await openLong(t, g);
    moveTo(t, g, 95_300, T0 + 1_000);
    moveTo(t, g, 94_900, T0 + 31_001);
    expect((await g.position("BTC-PERP")).qty).toBe("1.344");
    expect(t.state(ALICE).assetPositions[0]!.position.szi).toBe("1.344");
  });
});

/** BTC's mark on the sim as `metaAndAssetCtxs` reports it: the paper book reads it as its mid. */
function simMark(t: TestVenue): number {
  const [, ctxs] = t.venue.info({ type: "metaAndAssetCtxs" }) as [unknown, { markPx: string }[]];
  return Number(ctxs[BTC]!.markPx);
}

/** The marks the sim's liquidation fills acted on, oldest first. */
const simLiquidationMarks = (t: TestVenue) =>
  (t.venue.info({ type: "userFills", user: ALICE }) as { liquidation?: { markPx: string } }[])
    .flatMap((f) => (f.liquidation ? [Number(f.liquidation.markPx)] : []))
    .reverse();

describe("the dry-run book liquidates exactly when the sim does", () => {
  it("for random leverage, margin mode, size and moves: same positions, same liquidation fills", async () => {
    const scenario = fc.record({
      balance: fc.integer({ min: 1_000, max: 20_000 }),
      leverage: fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 25, max: 40 })),
      isolated: fc.boolean(),
      long: fc.boolean(),
      // Share of what the balance can margin at that leverage.
      use: fc.integer({ min: 30, max: 95 }),
      moves: fc.array(
        fc.record({
          // Mostly small moves (near maintenance, where partial liquidations happen), some gaps.
          pct: fc.oneof(
            { arbitrary: fc.integer({ min: -40, max: 40 }).map((p) => p / 20), weight: 3 },
            { arbitrary: fc.integer({ min: -120, max: 120 }).map((p) => p / 10), weight: 1 },
          ),
          afterMs: fc.constantFrom(1_000, 10_000, 35_000),
        }),
        { minLength: 1, maxLength: 3 },
      ),
    });
    let liquidated = 0;
    let partial = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async (sc) => {
        const t = testVenue({ balance: String(sc.balance) });
        t.venue.deposit(BOB, "1000000");
        t.venue.deposit(CAROL, "10000000");
        t.ex(ALICE, { type: "updateLeverage", asset: BTC, isCross: !sc.isolated, leverage: sc.leverage });
        const lots = Math.floor(((sc.balance * sc.leverage * sc.use) / 100 / 97_000) * 1e5);
        const size = (Math.max(lots, 11) / 1e5).toString();
        t.order(BOB, { a: BTC, b: !sc.long, p: "97000", s: size });
        // CAROL's ladder both sides, 0.5 % apart from 1 % away: what liquidations sell or buy into.
        for (let k = 0; k < 10; k++) {
          t.order(CAROL, { a: BTC, b: true, p: String(96_000 - 500 * k), s: "2" });
          t.order(CAROL, { a: BTC, b: false, p: String(98_000 + 500 * k), s: "2" });
        }
        const g = new PaperGateway({
          balanceUsd: String(sc.balance),
          leverage: sc.leverage,
          isolated: sc.isolated,
        });
        g.describe("BTC-PERP", {
          szDecimals: BTC_SPEC.szDecimals,
          asset: BTC,
          maxLeverage: BTC_SPEC.maxLeverage,
          ...(BTC_SPEC.marginTableId !== undefined ? { marginTableId: BTC_SPEC.marginTableId } : {}),
        });
        g.observe(btcSnapshot(t, 97_000));
        const side = sc.long ? "buy" : "sell";
        const [paper] = await g.place([
          {
            instrument: "BTC-PERP",
            cloid: "0x00000000000000000000000000000001",
            side,
            price: "97000",
            size,
            tif: "Ioc",
            reduceOnly: false,
          },
        ]);
        const sim = t.order(ALICE, {
          a: BTC,
          b: sc.long,
          p: "97000",
          s: size,
          t: { limit: { tif: "Ioc" } },
        }) as {
          error?: string;
        };
        expect(paper!.status === "filled").toBe(sim.error === undefined);
        let seen = 0;
        for (const move of sc.moves) {
          t.venue.setOraclePrice("BTC", Math.round(97_000 * (1 + move.pct / 100)));
          t.clock.now += move.afterMs;
          // The paper book reads the book as it was, at the mark the sim checked on its advance.
          const book = btcSnapshot(t, 0);
          const before = simLiquidationMarks(t).length;
          t.venue.advance(t.clock.now);
          const checkedAt = simLiquidationMarks(t)[before] ?? simMark(t);
          g.observe({ ...book, mid: checkedAt });
          const simQty = t.state(ALICE).assetPositions[0]?.position.szi ?? "0";
          expect((await g.position("BTC-PERP")).qty).toBe(simQty);
          const fills = await paperLiquidations(g);
          expect(fills).toEqual(simLiquidations(t));
          if (fills.length > seen && simQty !== "0") partial++;
          seen = fills.length;
        }
        if (seen > 0) liquidated++;
      }),
      { numRuns: 200, seed: 27 },
    );
    // The property saw both outcomes, and partial liquidations among them.
    expect(liquidated).toBeGreaterThan(10);
    expect(partial).toBeGreaterThan(0);
  });
});

/** Buys `size` at the ask on its first tick, then holds. */
const buyOnce = (size: number) =>
  defineStrategy({
    id: "buy_once",
    description: "test",
    type: "signal",
    params: z.object({}),
    init: () => ({ done: false }),
    decide(c, _p, st: { done: boolean }) {
      if (st.done) return { orders: [], state: st };
      return {
        orders: [{ side: "buy", price: c.snapshot.ask, size, tif: "Ioc", tag: "entry" }],
        state: { done: true },
      };
    },
  }) as unknown as AnyStrategy;

describe("hl run --dry-run takes a paper liquidation as it takes one on the sim", () => {
  it("the liquidation fill is journaled in trades.jsonl, alerted once, and the run's position is flat", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hl-paper-liq-"));
    // 5 ETH at 2500 on $700 at 20×: maintenance (ETH: 2 % below $100k) is passed near 2409.
    const fake = new FakeMarket({ script: (n) => (n <= 3 ? 2500 : 2400) });
    const eth = DEFAULT_MARKETS[1]!;
    const market: MarketDataPort = {
      spec: async (i) => ({
        ...(await fake.spec(i)),
        asset: 1,
        maxLeverage: eth.maxLeverage,
        ...(eth.marginTableId !== undefined ? { marginTableId: eth.marginTableId } : {}),
      }),
      snapshot: (i) => fake.snapshot(i),
    };
    const paper = new PaperGateway({ balanceUsd: "700", leverage: 20 });
    const alerts: [string, string][] = [];
    const engine = new Engine({
      alerter: { send: (e, t) => void alerts.push([e, t]), flush: async () => undefined },
      strategy: buyOnce(5),
      params: {},
      instrument: "ETH-PERP",
      market: paper.watch(market),
      gateway: paper,
      dataDir: dir,
      tickMs: 0,
      maxTicks: 6,
      resume: false,
      limits: DEFAULT_RISK_LIMITS,
      requoteBps: 2,
      mode: "dry-run",
      network: "test",
      log: () => undefined,
    });
    await engine.run();
    const trades = readFileSync(join(dir, "trades.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { side: string; quantity: string; fill_id: string });
    const liquidations = (await paper.fills("ETH-PERP", 0)).filter((f) => f.liquidation);
    expect(liquidations.map((f) => [f.side, f.size, f.liquidation?.method])).toEqual([
      ["sell", "5", "market"],
    ]);
    expect(trades.map((t) => [t.side, t.quantity])).toEqual([
      ["buy", "5"],
      ["sell", "5"],
    ]);
    expect(trades[1]!.fill_id).toBe(liquidations[0]!.id);
    // The operator hears of it at once, once.
    expect(alerts.filter(([e]) => e === "liquidation")).toEqual([
      [
        "liquidation",
        expect.stringMatching(
          /^T\d+ ETH-PERP: liquidated by the exchange \(market\): sell 5 at [\d.]+, mark [\d.]+; position now 0$/,
        ),
      ],
    ]);
    const positions = JSON.parse(readKvFile(join(dir, "state.db")).positions!) as {
      house: Record<string, { net_qty: string }>;
    };
    expect(positions.house["ETH-PERP"]!.net_qty).toBe("0");
  });
});
