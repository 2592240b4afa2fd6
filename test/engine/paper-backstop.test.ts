import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PaperBackstopPort } from "../../src/engine/paper-backstops.ts";
import { PaperGateway } from "../../src/engine/paper-gateway.ts";
import { isBackstopCloid } from "../../src/guard/backstop.ts";
import { runStopConfig } from "../../src/guard/position-stop.ts";
import { dslDryRunEngine, ordersStrategy } from "../support/dsl-engine.ts";
import { FakeMarket } from "./fake-market.ts";

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
    expect(Number(stop!.fee)).toBeCloseTo(2299.77 * 0.00045, 6);
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
