import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PaperBackstopPort } from "../../src/engine/paper-backstops.ts";
import { PaperGateway } from "../../src/engine/paper-gateway.ts";
import { isBackstopCloid } from "../../src/guard/backstop.ts";
import { runStopConfig } from "../../src/guard/position-stop.ts";
import { DEFAULT_MARKETS } from "../../src/sim/venue/index.ts";
import { ALICE, BOB, BTC, CAROL, type TestVenue, testVenue } from "../sim/venue/helpers.ts";
import { dslDryRunEngine, ordersStrategy } from "../support/dsl-engine.ts";
import { FakeMarket } from "./fake-market.ts";
import { btcSnapshot } from "./venue-book.ts";

/** Buys 1 ETH once (never again: a re-entry after the stop would hide the close). */
function buyOnce() {
  let bought = false;
  return ordersStrategy("buyer", (c) => {
    if (bought) return [];
    bought = true;
    return [{ side: "buy", price: c.snapshot.ask, size: 1, tif: "Ioc", tag: "e" }];
  });
}

const CLOID = "0x0000000000000000000000000000abcd" as const;

/** A paper book on ETH (asset 1, 4 size decimals) that has read one book around `mid`, long `qty`. */
async function longBook(
  start: number,
  qty: string,
): Promise<{ paper: PaperGateway; moveTo: (mid: number) => Promise<void> }> {
  let mid = start;
  const market = new FakeMarket({ script: () => mid });
  const paper = new PaperGateway();
  paper.describe("ETH-PERP", { szDecimals: 4, asset: 1 });
  paper.observe(await market.snapshot("ETH-PERP"));
  const [o] = await paper.place([
    {
      instrument: "ETH-PERP",
      cloid: "0x00000000000000000000000000000001",
      side: "buy",
      price: String(Math.round(start * 1.001)),
      size: qty,
      tif: "Ioc",
      reduceOnly: false,
    },
  ]);
  expect(o?.status).toBe("filled");
  const moveTo = async (to: number) => {
    mid = to;
    paper.observe(await market.snapshot("ETH-PERP"));
  };
  return { paper, moveTo };
}

describe("hl run --dry-run --dsl: the backstop rests in the paper book and fires as on the exchange", () => {
  it("the mid gaps through the stop: the paper book closes the long, the engine books it and the stop is gone", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hl-paper-backstop-"));
    // 2,500, up to 2,600 (the stop ratchets), then a gap to 2,300, far through the stop (~2,509).
    const market = new FakeMarket({ script: (step) => (step < 6 ? 2500 : step < 14 ? 2600 : 2300) });
    const paper = new PaperGateway();
    const lines: string[] = [];
    const engine = dslDryRunEngine(
      {
        strategy: buyOnce(),
        paper,
        market,
        dir,
        maxTicks: 18,
        // The client-side DSL needs several breaches: the stop on the book acts first.
        dsl: runStopConfig("moderate", { breach_interval_ms: 0, phase1_max_breaches: 5 }),
      },
      {
        backstops: new PaperBackstopPort(paper),
        log: (l) => lines.push(l),
        // A minute per tick, so the backstop may ratchet (at most once a minute).
        now: () => 1_800_000_000_000 + market.step * 61_000,
      },
    );
    const r = await engine.run();
    const log = lines.join("\n");
    expect(log).toMatch(/backstop ETH: long 1 protected by a stop at 2\d{3}/);
    expect(log).toMatch(/backstop ETH: ratcheted 2\d{3}(\.\d+)? → 2\d{3}/);

    const fills = await paper.fills("ETH-PERP", 0);
    const stopFills = fills.filter((f) => isBackstopCloid("run", f.cloid));
    expect(stopFills).toHaveLength(1);
    const [stop] = stopFills;
    // A market sell into the book the paper reads at the gap: its best bid (1 bp under 2,300),
    // never better than the mark (the mid) and never 10 % through it; the taker fee paid.
    expect(stop).toMatchObject({ side: "sell", size: "1", price: "2299.77" });
    expect(Number(stop!.fee)).toBeCloseTo(2299.77 * 0.00045, 5);
    expect(stop!.liquidation).toBeUndefined();

    // The engine saw the fill it did not send: flat, the close in the journal, the stop gone.
    expect(r.position.net_qty).toBe("0");
    expect((await paper.position("ETH-PERP")).qty).toBe("0");
    const journal = readFileSync(join(dir, "cli", "trades.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { side: string; quantity: string; cloid?: string; price: string });
    expect(journal.map((t) => [t.side, t.quantity])).toEqual([
      ["buy", "1"],
      ["sell", "1"],
    ]);
    expect(journal[1]!.cloid).toBe(stop!.cloid);
    expect(paper.triggers()).toEqual([]);
    expect(engine.backstop?.current?.status).toBe("none");
    // The DSL did not send a close of its own: the stop on the book closed the position.
    expect(log).not.toMatch(/DSL stop: .* closing/);
    // The operator is told, and the run stops as after its own DSL close (no re-entry at once).
    expect(log).toMatch(/ETH-PERP: the exchange stop filled: sell 1 at 2299\.77; position now 0/);
    expect(r.stopReason).toBe("dsl_stop");
    expect(r.dslReason).toBe("exchange stop");
    expect(r.tickCount).toBeLessThan(18);
  });

  it("a stop that fired while the run was down: the next start finds its fill, says so and stops", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hl-paper-backstop-down-"));
    let mid = 2500;
    const market = new FakeMarket({ script: () => mid });
    const paper = new PaperGateway();
    const dsl = runStopConfig("moderate", { breach_interval_ms: 0, phase1_max_breaches: 5 });
    // The first run buys once; the second, under the same id, never trades.
    const strategy = (buy: boolean) => (buy ? buyOnce() : ordersStrategy("buyer", () => []));
    const first = dslDryRunEngine(
      { strategy: strategy(true), paper, market, dir, maxTicks: 3, dsl },
      { backstops: new PaperBackstopPort(paper) },
    );
    expect((await first.run()).position.net_qty).toBe("1");
    expect(paper.triggers()).toHaveLength(1);
    // The run is down; the price gaps through the stop resting in the book.
    mid = 2300;
    paper.observe(await market.snapshot("ETH-PERP"));
    expect((await paper.position("ETH-PERP")).qty).toBe("0");

    const lines: string[] = [];
    const second = dslDryRunEngine(
      { strategy: strategy(false), paper, market, dir, maxTicks: 5, dsl },
      { backstops: new PaperBackstopPort(paper), log: (l) => lines.push(l) },
    );
    const r = await second.run();
    expect(lines.join("\n")).toMatch(/the exchange stop filled: sell 1 at 2299\.77; position now 0/);
    expect(r).toMatchObject({ stopReason: "dsl_stop", dslReason: "exchange stop" });
    expect(r.tickCount).toBe(3 + 1); // one tick after the first run's three
  });

  it("refuses as the exchange does: a stop already past the mark, a stop too small, a modify of a stop that is gone", async () => {
    const { paper } = await longBook(2500, "1");
    const port = new PaperBackstopPort(paper);
    const spec = { coin: "ETH", side: "long" as const, size: "1", triggerPx: "2400", cloid: CLOID };
    // A sell stop at or above the mark would fire at once.
    expect(await port.placeStop({ ...spec, triggerPx: "2600" })).toEqual({
      status: "refused",
      message: "Invalid TP/SL price. asset=1",
    });
    // Under the lot the client refuses before sending (live the same: the size rounds to nothing).
    await expect(port.placeStop({ ...spec, size: "0.00001" })).rejects.toThrow(/below the minimum lot/);
    expect(await port.modifyStop(spec)).toEqual({
      status: "refused",
      message: "Cannot modify canceled or filled order",
    });
    const placed = await port.placeStop(spec);
    expect(placed.status).toBe("resting");
    expect(await port.placeStop(spec)).toEqual({ status: "refused", message: "Duplicate cloid." });
    expect(await port.restingStops()).toEqual([
      { coin: "ETH", cloid: CLOID, oid: (placed as { oid: number }).oid, size: "1", triggerPx: "2400" },
    ]);
    // A refused modify leaves the stop as it was.
    expect((await port.modifyStop({ ...spec, triggerPx: "2550" })).status).toBe("refused");
    expect((await port.restingStops())[0]?.triggerPx).toBe("2400");
    const moved = await port.modifyStop({ ...spec, triggerPx: "2450" });
    expect(moved.status).toBe("resting");
    expect((await port.restingStops())[0]?.triggerPx).toBe("2450");
    await port.cancelStop("ETH", CLOID);
    expect(await port.restingStops()).toEqual([]);
    // Already gone: not an error, as on the exchange client.
    await port.cancelStop("ETH", CLOID);
  });

  it("a stop whose position closed meanwhile is cancelled when it triggers (reduce-only), sending nothing", async () => {
    const { paper, moveTo } = await longBook(2500, "1");
    const port = new PaperBackstopPort(paper);
    expect(
      (await port.placeStop({ coin: "ETH", side: "long", size: "1", triggerPx: "2400", cloid: CLOID }))
        .status,
    ).toBe("resting");
    await paper.place([
      {
        instrument: "ETH-PERP",
        cloid: "0x00000000000000000000000000000002",
        side: "sell",
        price: "2490",
        size: "1",
        tif: "Ioc",
        reduceOnly: true,
      },
    ]);
    await moveTo(2300);
    expect(await paper.fills("ETH-PERP", 0)).toHaveLength(2);
    expect(paper.triggers()).toEqual([]);
  });
});

const BTC_SPEC = DEFAULT_MARKETS[BTC]!;

function simMark(t: TestVenue): number {
  const [, ctxs] = t.venue.info({ type: "metaAndAssetCtxs" }) as [unknown, { markPx: string }[]];
  return Number(ctxs[BTC]!.markPx);
}

describe("the paper book's stops and liquidation", () => {
  it("a liquidation cancels the account's stops, as the venue cancels its open orders", async () => {
    // $6,000 and a 2.1 BTC long at 97,000 at 40× cross: liquidated when the mark reaches 95,300.
    const t = testVenue({ balance: "6000" });
    t.venue.deposit(CAROL, "1000000");
    t.order(CAROL, { a: BTC, b: false, p: "97000", s: "2.1" });
    t.order(CAROL, { a: BTC, b: true, p: "95290", s: "5" });
    t.order(CAROL, { a: BTC, b: true, p: "90000", s: "5" });
    const g = new PaperGateway({ balanceUsd: "6000", leverage: 40 });
    g.describe("BTC-PERP", {
      szDecimals: BTC_SPEC.szDecimals,
      asset: BTC,
      maxLeverage: BTC_SPEC.maxLeverage,
      ...(BTC_SPEC.marginTableId !== undefined ? { marginTableId: BTC_SPEC.marginTableId } : {}),
    });
    g.observe(btcSnapshot(t, 97_000));
    await g.place([
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
    const stop = {
      instrument: "BTC-PERP",
      side: "sell" as const,
      price: "85000",
      size: "2.1",
      triggerPx: "94000",
      tpsl: "sl" as const,
      reduceOnly: true,
      cloid: CLOID,
    };
    expect(g.placeTrigger(stop).status).toBe("resting");
    g.observe(btcSnapshot(t, 95_300));
    expect((await g.position("BTC-PERP")).qty).toBe("1.68");
    expect(g.triggers()).toEqual([]);
    // The mark then passes where the stop was: nothing fires.
    g.observe(btcSnapshot(t, 93_000));
    expect((await g.fills("BTC-PERP", 0)).filter((f) => f.cloid === CLOID)).toEqual([]);
  });
});

describe("the paper book triggers as the sim venue does", () => {
  it("for random positions, stops and gaps: same acceptance and refusal texts, same stop fills, same position", async () => {
    const scenario = fc.record({
      long: fc.boolean(),
      lots: fc.integer({ min: 11, max: 60_000 }),
      // Trigger price against the mark, in tenths of a percent (some on the wrong side: refused).
      triggerPct: fc.integer({ min: -120, max: 30 }),
      // The stop's size: the position's, part of it, more than it, 0 (all of it), under the lot.
      size: fc.constantFrom("all", "half", "double", "zero", "dust", "bad-trigger"),
      // Mostly reduce-only, as the backstop; some not (a stop that may flip the position).
      reduceOnly: fc.oneof(
        { arbitrary: fc.constant(true), weight: 3 },
        { arbitrary: fc.constant(false), weight: 1 },
      ),
      // The mark's gap against the position, in tenths of a percent: often through the trigger,
      // sometimes past 10 %.
      gapPct: fc.integer({ min: -200, max: 60 }),
      // Sizes of the house's levels (BTC), so a stop sometimes walks several.
      depth: fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 6, maxLength: 6 }),
    });
    let fired = 0;
    let walked = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async (sc) => {
        const t = testVenue({ balance: "1000000" });
        t.venue.deposit(BOB, "1000000");
        t.venue.deposit(CAROL, "10000000");
        const size = (sc.lots / 1e5).toString();
        t.order(BOB, { a: BTC, b: !sc.long, p: "97000", s: size });
        // CAROL's ladder both sides, 1 % apart from 0.5 % away: what a fired stop meets.
        sc.depth.forEach((d, k) => {
          t.order(CAROL, { a: BTC, b: true, p: String(96_500 - 970 * k), s: String(d / 100) });
          t.order(CAROL, { a: BTC, b: false, p: String(97_500 + 970 * k), s: String(d / 100) });
        });
        const g = new PaperGateway({ balanceUsd: "1000000" });
        g.describe("BTC-PERP", { szDecimals: BTC_SPEC.szDecimals, asset: BTC });
        g.observe(btcSnapshot(t, simMark(t)));
        const side = sc.long ? "buy" : "sell";
        await g.place([
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
        t.order(ALICE, { a: BTC, b: sc.long, p: "97000", s: size, t: { limit: { tif: "Ioc" } } });
        expect((await g.position("BTC-PERP")).qty).toBe(sc.long ? size : `-${size}`);

        const mark = simMark(t);
        g.observe(btcSnapshot(t, mark));
        const closeBuy = !sc.long;
        // A stop-loss on the position's side (a long's below the mark), as the backstop places it.
        const trigger = Math.round(mark * (1 + ((sc.long ? 1 : -1) * sc.triggerPct) / 1000));
        const stopSize = {
          all: size,
          half: (Math.max(1, Math.floor(sc.lots / 2)) / 1e5).toString(),
          double: ((2 * sc.lots) / 1e5).toString(),
          zero: "0",
          dust: "0.000001",
          "bad-trigger": size,
        }[sc.size];
        const triggerPx = sc.size === "bad-trigger" ? `${trigger}.5` : String(trigger);
        const limit = String(Math.round(trigger * (closeBuy ? 1.1 : 0.9)));
        const paperAnswer = g.placeTrigger({
          instrument: "BTC-PERP",
          side: closeBuy ? "buy" : "sell",
          price: limit,
          size: stopSize,
          triggerPx,
          tpsl: "sl",
          reduceOnly: sc.reduceOnly,
          cloid: CLOID,
        });
        const simAnswer = t.order(ALICE, {
          a: BTC,
          b: closeBuy,
          p: limit,
          s: stopSize,
          r: sc.reduceOnly,
          t: { trigger: { isMarket: true, triggerPx, tpsl: "sl" } },
          c: CLOID,
        }) as { resting?: unknown; error?: string };
        if (simAnswer.error !== undefined) {
          refused++;
          expect(paperAnswer).toEqual({ status: "rejected", message: simAnswer.error });
          return;
        }
        expect(paperAnswer.status).toBe("resting");

        // The paper book reads the book the stop met on the sim, at the mark that fired it.
        const book = btcSnapshot(t, 0);
        const gap = ((sc.long ? 1 : -1) * sc.gapPct) / 1000;
        t.venue.setOraclePrice("BTC", String(Math.round(mark * (1 + gap))));
        g.observe({ ...book, mid: simMark(t) });
        const simStopFills = (t.venue.info({ type: "userFills", user: ALICE }) as Record<string, string>[])
          .filter((f) => f.cloid === CLOID)
          .map((f) => ({ side: f.side === "B" ? "buy" : "sell", price: f.px, size: f.sz }))
          .reverse();
        const paperStopFills = (await g.fills("BTC-PERP", 0))
          .filter((f) => f.cloid === CLOID)
          .map((f) => ({ side: f.side, price: f.price, size: f.size }));
        expect(paperStopFills).toEqual(simStopFills);
        if (simStopFills.length > 0) fired++;
        if (simStopFills.length > 1) walked++;
        const simQty = t.state(ALICE).assetPositions[0]?.position.szi ?? "0";
        expect((await g.position("BTC-PERP")).qty).toBe(simQty);
        const simWaiting = (t.venue.info({ type: "frontendOpenOrders", user: ALICE }) as unknown[]).length;
        expect(g.triggers()).toHaveLength(simWaiting);
      }),
      { numRuns: 150, seed: 41 },
    );
    // Stops fired (some through several levels) and stops refused were all seen.
    expect(fired).toBeGreaterThan(25);
    expect(walked).toBeGreaterThan(5);
    expect(refused).toBeGreaterThan(10);
  });
});
