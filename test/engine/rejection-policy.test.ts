import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Engine } from "../../src/engine/engine.ts";
import { PaperGateway } from "../../src/engine/paper-gateway.ts";
import type { PlaceOutcome, PlaceRequest } from "../../src/engine/ports.ts";
import { DEFAULT_RISK_LIMITS } from "../../src/engine/risk.ts";
import { defaultParams, findStrategy } from "../../src/strategies/catalog.ts";
import { FakeMarket } from "./fake-market.ts";

/** The paper venue, refusing every order with `message` while `refusing` is true; it records what was sent. */
class Refusing extends PaperGateway {
  sent: PlaceRequest[][] = [];
  refusing = true;
  constructor(private readonly message: string) {
    super();
  }
  override async place(orders: readonly PlaceRequest[]): Promise<PlaceOutcome[]> {
    this.sent.push([...orders]);
    if (this.refusing) return orders.map(() => ({ status: "rejected", message: this.message }));
    return super.place(orders);
  }
}

function run(gateway: Refusing, maxTicks: number, now?: () => number) {
  const strategy = findStrategy("simple_mm")!;
  const lines: string[] = [];
  const engine = new Engine({
    strategy,
    params: defaultParams(strategy),
    instrument: "ETH-PERP",
    market: gateway.watch(new FakeMarket({ seed: 3 })),
    gateway,
    dataDir: mkdtempSync(join(tmpdir(), "hl-reject-")),
    tickMs: 0,
    maxTicks,
    resume: false,
    limits: DEFAULT_RISK_LIMITS,
    requoteBps: 2,
    mode: "dry-run",
    network: "test",
    log: (l) => lines.push(l),
    ...(now ? { now } : {}),
  });
  return { engine, lines };
}

describe("the engine reacts to the exchange's reason", () => {
  it("no liquidity: the coin is left alone for the cooldown instead of re-sent every tick", async () => {
    const g = new Refusing("No liquidity available for market order. asset=1");
    const { engine } = run(g, 10);
    await engine.run();
    expect(g.sent).toHaveLength(1);
  });

  it("insufficient margin: later orders are smaller", async () => {
    const g = new Refusing("Insufficient margin to place order. asset=1");
    const { engine } = run(g, 3);
    await engine.run();
    const sizes = g.sent.map((batch) => Number(batch[0]!.size));
    expect(sizes.length).toBeGreaterThanOrEqual(2);
    expect(sizes[1]!).toBeLessThan(sizes[0]!);
  });

  it("a halted market: the order is sent once, then nothing for the cooldown, said in one line", async () => {
    const g = new Refusing("Trading is halted.");
    const { engine, lines } = run(g, 20);
    await engine.run();
    expect(g.sent).toHaveLength(1);
    const said = lines.filter((l) => /halted/i.test(l) && !/exchange refused:/.test(l));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/ETH-PERP.*halted.*no new orders for 60 min/);
  });

  it("a wallet the exchange does not know stops the run", async () => {
    const g = new Refusing("User or API Wallet 0x0000000000000000000000000000000000000001 does not exist.");
    const { engine, lines } = run(g, 10);
    const r = await engine.run();
    expect(r.ticks).toBe(1);
    expect(r.stopReason).toBe("halted");
    expect(lines.join("\n")).toMatch(/does not exist/);
  });
});

describe("RejectionPolicy", () => {
  it("while a coin is left alone, reduce-only orders still go out", async () => {
    const { RejectionPolicy } = await import("../../src/engine/rejection-policy.ts");
    const p = new RejectionPolicy();
    p.learn(["Order would increase open interest while open interest is capped"], 0);
    const o = { side: "sell" as const, price: 1, size: 1, tif: "Ioc" as const, tag: "t" };
    const g = p.gate([o, { ...o, reduceOnly: true }], 1_000);
    expect(g.intents).toEqual([{ ...o, reduceOnly: true }]);
    expect(g.held).toBe("open_interest_cap");
    expect(p.gate([o], 61_000).intents).toEqual([o]);
  });
});

describe("RejectionPolicy on a halted market", () => {
  it("holds new orders for the long cooldown and lets a closing order out at most once a minute", async () => {
    const { RejectionPolicy } = await import("../../src/engine/rejection-policy.ts");
    const p = new RejectionPolicy();
    const o = { side: "sell" as const, price: 1, size: 1, tif: "Ioc" as const, tag: "t" };
    const close = { ...o, reduceOnly: true };
    p.learn(["Trading is halted."], 0);
    // A reduce-only order would be refused too: it is not re-sent every tick.
    expect(p.gate([o, close], 1_000)).toEqual({ intents: [], held: "market_halted" });
    expect(p.gate([o, close], 60_000).intents).toEqual([close]);
    p.learn(["Trading is halted. asset=1"], 60_000);
    expect(p.gate([o, close], 61_000).intents).toEqual([]);
    // Each refusal says the market is still halted: the hour runs from the last one.
    expect(p.gate([o], 60 * 60_000 + 1).intents).toEqual([]);
    expect(p.gate([o], 60_000 + 60 * 60_000).intents).toEqual([o]);
  });
});
