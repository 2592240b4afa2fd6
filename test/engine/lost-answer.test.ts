import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Engine } from "../../src/engine/engine.ts";
import { HlGateway, HlMarketData } from "../../src/engine/hl-adapter.ts";
import { DEFAULT_RISK_LIMITS } from "../../src/engine/risk.ts";
import { RateBudget } from "../../src/exchange/budget.ts";
import { HlClient } from "../../src/exchange/client.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";
import { defineStrategy } from "../../src/strategies/sdk.ts";

/** Buys up to a 0.05 ETH position with IOCs, whatever the tick (a taker that trusts its position). */
const target = defineStrategy({
  id: "target_test",
  description: "take up to a fixed long",
  type: "taker",
  params: z.object({}),
  init: () => ({}),
  decide(ctx, _p, state) {
    const want = 0.05 - ctx.positionQty;
    if (want < 0.001) return { orders: [], state };
    const price = ctx.snapshot.ask * 1.01;
    return { orders: [{ side: "buy", price, size: want, tif: "Ioc", tag: "target" }], state };
  },
});

describe("hl run: an order whose answer is lost", () => {
  let world: SimWorld;
  beforeAll(async () => {
    world = await startSimWorld({ port: 0, seed: 9 });
  });
  afterAll(async () => {
    await world.close();
  });

  it("is resolved by cloid before the next order: exactly one position", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hl-lost-"));
    const client = await HlClient.create({
      network: "paper",
      apiUrl: world.url,
      env: { DATA_DIR: dir },
      budget: new RateBudget({ weightPerMinute: 1e9 }),
      timeoutMs: 300,
      orderTtlMs: 3_000,
    });
    await client.accountSummary();
    // The first order waits 1.2 s on the way (the client gives up after 0.3 s), then executes.
    world.faults.add({ kind: "slow", type: "order", delayMs: 1_200 });
    const market = new HlMarketData(client);
    const lines: string[] = [];
    const engine = new Engine({
      strategy: target,
      params: {},
      instrument: "ETH-PERP",
      market,
      gateway: new HlGateway(client, market),
      dataDir: join(dir, "cli"),
      tickMs: 100,
      maxTicks: 12,
      resume: false,
      limits: DEFAULT_RISK_LIMITS,
      requoteBps: 2,
      mode: "mock",
      network: "paper",
      log: (l) => lines.push(l),
    });
    const r = await engine.run();
    const { positions } = await client.accountSummary();
    await client.close();
    expect(positions.filter((p) => p.coin === "ETH").map((p) => p.szi)).toEqual(["0.05"]);
    expect(r.position.net_qty).toBe("0.05");
    expect(r.stats.total_filled).toBe(1);
  }, 20_000);
});

describe("HlGateway with an unresolved order", () => {
  it("sends nothing more until the lost order is resolved", async () => {
    const { OrderOutcomeUnknownError, OrderUnresolvedError } = await import(
      "../../src/exchange/order-outcome.ts"
    );
    const pending = {
      order: {
        instrument: "ETH-PERP",
        coin: "ETH",
        assetId: 1,
        side: "buy" as const,
        price: "1",
        size: "1",
        tif: "Ioc" as const,
        reduceOnly: false,
        cloid: "0x000000000000000000000000000000ab" as const,
      },
      sentAtMs: 0,
      expiresAfterMs: 0,
    };
    let sent = 0;
    let reachable = false;
    const client = {
      orders: async () => {
        sent += 1;
        if (sent === 1) throw new OrderOutcomeUnknownError("timeout", [pending]);
        return [{ status: "resting", oid: 2, order: pending.order }];
      },
      resolveOrder: async () => {
        if (!reachable) throw new OrderUnresolvedError("exchange unreachable");
        return { status: "filled", oid: 1, totalSz: "1", avgPx: "1", order: pending.order };
      },
    } as unknown as HlClient;
    const gw = new HlGateway(client, {} as HlMarketData);
    const req = { ...pending.order, price: "1", size: "1", cloid: pending.order.cloid };
    await expect(gw.place([req])).rejects.toBeInstanceOf(OrderUnresolvedError);
    await expect(gw.place([req])).rejects.toBeInstanceOf(OrderUnresolvedError);
    expect(sent).toBe(1);
    reachable = true;
    expect(await gw.place([req])).toEqual([{ status: "resting", oid: "2" }]);
    expect(sent).toBe(2);
  });
});

describe("HlGateway across a restart", () => {
  it("saves each order's cloid and expiry before sending it, and resolves it after a restart before sending anything else", async () => {
    const { StateStore } = await import("../../src/engine/state-store.ts");
    const { pendingOrderStore } = await import("../../src/engine/hl-adapter.ts");
    const dir = mkdtempSync(join(tmpdir(), "hl-pending-"));
    const order = {
      instrument: "ETH-PERP",
      coin: "ETH",
      assetId: 1,
      side: "buy" as const,
      price: "1",
      size: "1",
      tif: "Gtc" as const,
      reduceOnly: false,
      cloid: "0x000000000000000000000000000000cd" as const,
    };
    // The first process signs and sends the order, then dies before any answer.
    const calls: string[] = [];
    const dying = {
      orders: (_reqs: unknown, opts?: { onSending?: (p: unknown[]) => void }) => {
        opts?.onSending?.([{ order, sentAtMs: 1_000, expiresAfterMs: 16_000 }]);
        return new Promise(() => undefined);
      },
    } as unknown as HlClient;
    const dyingStore = StateStore.inDir(dir);
    const before = new HlGateway(dying, {} as HlMarketData, undefined, {
      pending: pendingOrderStore(dyingStore),
    });
    void before.place([{ ...order }]);
    await new Promise((r) => setTimeout(r, 10));
    const saved = StateStore.inDir(dir);
    expect(JSON.parse(saved.readAll().pending_orders ?? "[]")).toMatchObject([
      { order: { cloid: order.cloid }, expiresAfterMs: 16_000 },
    ]);
    saved.close();

    // The restarted process resolves that order by its cloid before it sends a new one.
    const restarted = {
      resolveOrder: async (p: { order: { cloid: string } }) => {
        calls.push(`resolve ${p.order.cloid}`);
        return { status: "resting", oid: 7, order };
      },
      orders: async () => {
        calls.push("send");
        return [{ status: "resting", oid: 8, order }];
      },
    } as unknown as HlClient;
    dyingStore.close(); // the first process is gone
    const restartedStore = StateStore.inDir(dir);
    const after = new HlGateway(restarted, {} as HlMarketData, undefined, {
      pending: pendingOrderStore(restartedStore),
    });
    await after.place([{ ...order, cloid: "0x000000000000000000000000000000ce" }]);
    expect(calls).toEqual([`resolve ${order.cloid}`, "send"]);
    restartedStore.close();
    const cleared = StateStore.inDir(dir);
    expect(JSON.parse(cleared.readAll().pending_orders ?? "null")).toEqual([]);
    cleared.close();
  });
});
