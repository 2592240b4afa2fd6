import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SentOrder } from "../../src/exchange/actions.ts";
import { RateBudget } from "../../src/exchange/budget.ts";
import { HlClient } from "../../src/exchange/client.ts";
import {
  NEVER_PLACED,
  OrderOutcomeUnknownError,
  OrderUnresolvedError,
  type OutcomeSource,
  type PendingOrder,
  placeResolved,
  resolveOrderOutcome,
} from "../../src/exchange/order-outcome.ts";
import { classifyRejection } from "../../src/exchange/rejections.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";

const SENT: SentOrder & { cloid: `0x${string}` } = {
  instrument: "ETH-PERP",
  coin: "ETH",
  assetId: 1,
  side: "buy",
  price: "2500",
  size: "0.1",
  tif: "Ioc",
  reduceOnly: false,
  cloid: "0x000000000000000000000000000000aa",
};

/** A clock that the fake sleep moves forward. */
function fakeTime(start = 1_000_000) {
  let t = start;
  return {
    now: () => t,
    sleep: async (ms: number) => {
      t += ms;
    },
  };
}

describe("resolveOrderOutcome (rules)", () => {
  it("an unknown cloid is 'never placed' only once its expiry has passed", async () => {
    const clock = fakeTime();
    const asked: number[] = [];
    const source: OutcomeSource = {
      orderStatus: async () => {
        asked.push(clock.now());
        return { status: "unknownOid" };
      },
      userFillsByTime: async () => [],
    };
    const r = await resolveOrderOutcome(
      source,
      { order: SENT, sentAtMs: 1_000_000, expiresAfterMs: 1_005_000 },
      { ...clock, pollMs: 1_000, clockSkewMs: 2_000 },
    );
    expect(r).toMatchObject({ status: "error", message: NEVER_PLACED });
    expect(asked.at(-1)).toBeGreaterThan(1_007_000);
    expect(asked.filter((t) => t <= 1_007_000).length).toBeGreaterThan(1);
  });

  it("a rejected status reads like the live refusal", async () => {
    const source: OutcomeSource = {
      orderStatus: async () =>
        ({
          status: "order",
          order: {
            order: { oid: 7, origSz: "0.1", sz: "0.1", limitPx: "2500" },
            status: "perpMarginRejected",
            statusTimestamp: 1,
          },
        }) as never,
      userFillsByTime: async () => [],
    };
    const r = await resolveOrderOutcome(source, { order: SENT, sentAtMs: 0, expiresAfterMs: 0 });
    expect(r.status).toBe("error");
    expect(classifyRejection((r as { message: string }).message).reason).toBe("insufficient_margin");
  });

  it("an IOC cancelled after a partial fill resolves to the filled part at its fills' price", async () => {
    const source: OutcomeSource = {
      orderStatus: async () =>
        ({
          status: "order",
          order: {
            order: { oid: 9, origSz: "0.3", sz: "0.1", limitPx: "2600" },
            status: "canceled",
            statusTimestamp: 1,
          },
        }) as never,
      userFillsByTime: async () =>
        [
          { oid: 9, px: "2500", sz: "0.1" },
          { oid: 9, px: "2510", sz: "0.1" },
          { oid: 8, px: "1", sz: "5" },
        ] as never,
    };
    const r = await resolveOrderOutcome(source, { order: SENT, sentAtMs: 0, expiresAfterMs: 0 });
    expect(r).toMatchObject({ status: "filled", oid: 9, totalSz: "0.2", avgPx: "2505" });
  });

  it("an average of several fills is a price, not decimal.js's 40 digits", async () => {
    const source: OutcomeSource = {
      orderStatus: async () =>
        ({
          status: "order",
          order: {
            order: { oid: 9, origSz: "0.3", sz: "0", limitPx: "2600" },
            status: "filled",
            statusTimestamp: 1,
          },
        }) as never,
      userFillsByTime: async () =>
        [
          { oid: 9, px: "2500", sz: "0.1" },
          { oid: 9, px: "2500", sz: "0.1" },
          { oid: 9, px: "2501", sz: "0.1" },
        ] as never,
    };
    const r = await resolveOrderOutcome(source, { order: SENT, sentAtMs: 0, expiresAfterMs: 0 });
    expect(r).toMatchObject({ status: "filled", totalSz: "0.3", avgPx: "2500.33333333" });
  });

  it("when the exchange cannot be asked, it gives up with the order still unresolved", async () => {
    const clock = fakeTime();
    const source: OutcomeSource = {
      orderStatus: async () => {
        throw new Error("ECONNRESET");
      },
      userFillsByTime: async () => [],
    };
    await expect(
      resolveOrderOutcome(
        source,
        { order: SENT, sentAtMs: 1_000_000, expiresAfterMs: 1_001_000 },
        { ...clock, maxWaitMs: 5_000 },
      ),
    ).rejects.toBeInstanceOf(OrderUnresolvedError);
  });
});

describe("an order whose answer is lost, on the sim world", () => {
  let world: SimWorld;
  beforeAll(async () => {
    world = await startSimWorld({ port: 0, seed: 5 });
  });
  afterAll(async () => {
    await world.close();
  });

  async function client(): Promise<HlClient> {
    const dir = mkdtempSync(join(tmpdir(), "hl-outcome-"));
    return HlClient.create({
      network: "paper",
      apiUrl: world.url,
      env: { DATA_DIR: dir },
      budget: new RateBudget({ weightPerMinute: 1e9 }),
      timeoutMs: 400,
      orderTtlMs: 600,
    }).then(async (c) => {
      await c.accountSummary(); // the sim opens an account for an address it is asked about
      return c;
    });
  }

  for (const kind of ["late", "reset"] as const) {
    it(`${kind}: the order executed; resolving by cloid finds the fill, and there is exactly one position`, async () => {
      const c = await client();
      world.faults.add({ kind, type: "order", delayMs: 1_500 });
      const err = await c.marketOrder({ instrument: "ETH-PERP", side: "buy", size: "0.05" }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(OrderOutcomeUnknownError);
      const pending = (err as OrderOutcomeUnknownError).pending;
      expect(pending).toHaveLength(1);
      expect(pending[0]!.order.cloid).toMatch(/^0x[0-9a-f]{32}$/);
      const r = await c.resolveOrder(pending[0]!, { pollMs: 50, clockSkewMs: 200 });
      expect(r).toMatchObject({ status: "filled", totalSz: "0.05" });
      const { positions } = await c.accountSummary();
      const eth = positions.filter((p) => p.coin === "ETH");
      expect(eth.map((p) => p.szi)).toEqual(["0.05"]);
      expect(Number((r as { avgPx: string }).avgPx)).toBeCloseTo(Number(eth[0]!.entryPx), 6);
      await c.close();
    });
  }

  it("onSending hears of each order, as signed and with its expiry, before the request goes out", async () => {
    const c = await client();
    world.faults.add({ kind: "late", type: "order", delayMs: 1_500 });
    const heard: PendingOrder[][] = [];
    const sending = c.marketOrder(
      { instrument: "ETH-PERP", side: "buy", size: "0.05" },
      { onSending: (p) => void heard.push([...p]) },
    );
    const err = await sending.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OrderOutcomeUnknownError);
    expect(heard).toEqual([(err as OrderOutcomeUnknownError).pending]);
    expect(heard[0]![0]!.expiresAfterMs - heard[0]![0]!.sentAtMs).toBe(600);
    const r = await c.resolveOrder(heard[0]![0]!, { pollMs: 50, clockSkewMs: 200 });
    expect(r).toMatchObject({ status: "filled", totalSz: "0.05" });
    await c.close();
  });

  it("a 429 is retried by the client (nothing was processed), so the order trades once", async () => {
    const c = await client();
    world.faults.add({ kind: "rate_limit", type: "order" });
    const r = await c.marketOrder({ instrument: "ETH-PERP", side: "buy", size: "0.05" });
    expect(r.status).toBe("filled");
    const { positions } = await c.accountSummary();
    expect(positions.filter((p) => p.coin === "ETH").map((p) => p.szi)).toEqual(["0.05"]);
  });

  it("an order the exchange never processed resolves to 'never placed' after its expiry", async () => {
    const c = await client();
    const sent = { ...SENT, cloid: "0x0000000000000000000000000000beef" as const };
    const now = Date.now();
    const r = await c.resolveOrder(
      { order: sent, sentAtMs: now, expiresAfterMs: now + 100 },
      { pollMs: 50, clockSkewMs: 100 },
    );
    expect(r).toMatchObject({ status: "error", message: NEVER_PLACED });
  });
});

describe("placeResolved (hl trade, MCP trade)", () => {
  let world: SimWorld;
  beforeAll(async () => {
    world = await startSimWorld({ port: 0, seed: 6 });
  });
  afterAll(async () => {
    await world.close();
  });

  it("returns the fill of an order whose answer was lost, and it traded once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hl-outcome-"));
    const c = await HlClient.create({
      network: "paper",
      apiUrl: world.url,
      env: { DATA_DIR: dir },
      budget: new RateBudget({ weightPerMinute: 1e9 }),
      timeoutMs: 400,
      orderTtlMs: 600,
    });
    await c.accountSummary();
    world.faults.add({ kind: "reset", type: "order" });
    const price = await c.marketablePrice("ETH-PERP", "sell");
    const r = await placeResolved(
      c,
      { instrument: "ETH-PERP", side: "sell", size: "0.04", price, tif: "Ioc" },
      { pollMs: 50, clockSkewMs: 200 },
    );
    expect(r).toMatchObject({ status: "filled", totalSz: "0.04" });
    const { positions } = await c.accountSummary();
    expect(positions.filter((p) => p.coin === "ETH").map((p) => p.szi)).toEqual(["-0.04"]);
    await c.close();
  });
});
