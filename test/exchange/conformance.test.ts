import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExchangeClient, type IRequestTransport } from "@nktkas/hyperliquid";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { D } from "../../src/core/decimal.ts";
import { HlClient, type OrderResult, RejectedError } from "../../src/exchange/index.ts";
import { startSimWorld } from "../../src/sim/world.ts";

/**
 * Every client call round-trips through the SDK against a real sim world (HTTP + WebSocket), and the
 * exchange's refusals surface as RejectedError with the exchange's own message.
 */

type World = Awaited<ReturnType<typeof startSimWorld>>;
let world: World;
let client: HlClient;
let dataDir: string;
const key = generatePrivateKey();
const me = privateKeyToAccount(key).address;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "hl-conf-"));
  world = await startSimWorld({ port: 0, seed: 7 });
  client = await HlClient.create({
    network: "paper",
    apiUrl: world.url,
    wsUrl: world.wsUrl,
    privateKey: key,
    env: { DATA_DIR: dataDir },
    retry: { attempts: 1 },
  });
  await client.clearinghouseState(); // the sim opens an account (with its starting balance) on first sight
});

afterAll(async () => {
  await client?.close();
  await world?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function expectStatus<S extends OrderResult["status"]>(
  r: OrderResult,
  status: S,
): Extract<OrderResult, { status: S }> {
  if (r.status !== status) throw new Error(`expected ${status}, got ${JSON.stringify(r)}`);
  return r as Extract<OrderResult, { status: S }>;
}

async function bestBidAsk(instrument: string): Promise<{ bid: string; ask: string }> {
  const book = await client.l2Book(instrument);
  const bid = book?.levels[0][0]?.px;
  const ask = book?.levels[1][0]?.px;
  if (!bid || !ask) throw new Error(`empty book for ${instrument}`);
  return { bid, ask };
}

describe("info calls", () => {
  it("reads markets of the main dex and of HIP-3 dexes", async () => {
    const dexes = await client.perpDexs();
    expect(dexes[0]).toBeNull();
    const hip3 = await client.hip3Dexes();
    expect(hip3).toContain("yex");

    const meta = await client.meta();
    expect(meta.universe.map((u) => u.name)).toContain("ETH");
    const yexMeta = await client.meta("yex");
    expect(yexMeta.universe.map((u) => u.name)).toEqual(
      expect.arrayContaining(["yex:VXX", "yex:US3M", "yex:BTCSWP"]),
    );

    const [m, ctxs] = await client.metaAndAssetCtxs();
    expect(ctxs).toHaveLength(m.universe.length);
    expect(typeof ctxs[0]?.markPx).toBe("string");
    const all = await client.allMetaAndAssetCtxs();
    expect(all.map((x) => x.dex)).toEqual(["", ...hip3]);

    const symbols = await client.symbols();
    expect((await client.market("vxx-usdyp")).assetId).toBeGreaterThanOrEqual(100_000);
    expect(symbols.resolve("ETH-PERP").coin).toBe("ETH");
  });

  it("reads mids per dex and merged, the book and candles", async () => {
    const mids = await client.allMids();
    expect(new D(mids.ETH ?? "0").gt(0)).toBe(true);
    const merged = await client.allMidsMerged();
    expect(merged.ETH).toBe(mids.ETH === undefined ? undefined : merged.ETH);
    expect(Object.keys(merged)).toEqual(expect.arrayContaining(["ETH", "yex:VXX"]));

    const { bid, ask } = await bestBidAsk("ETH-PERP");
    expect(new D(bid).lt(ask)).toBe(true);

    const now = Date.now();
    const candles = await client.candleSnapshot({
      coin: "ETH-PERP",
      interval: "1m",
      startTime: now - 3_600_000,
    });
    expect(Array.isArray(candles)).toBe(true);
  });

  it("reads the account on every dex, summed", async () => {
    const state = await client.clearinghouseState();
    expect(typeof state.marginSummary.accountValue).toBe("string");
    const yex = await client.clearinghouseState({ dex: "yex" });
    expect(typeof yex.withdrawable).toBe("string");
    const summary = await client.accountSummary();
    expect(summary.user.toLowerCase()).toBe(me.toLowerCase());
    expect(summary.perDex.map((d) => d.dex)[0]).toBe("");
    const sum = summary.perDex.reduce((acc, d) => acc.plus(d.state.marginSummary.accountValue), new D(0));
    expect(summary.accountValue).toBe(sum.toFixed());
    expect(new D(summary.accountValue).gt(0)).toBe(true);
    const spot = await client.spotClearinghouseState();
    expect(Array.isArray(spot.balances)).toBe(true);
  });

  it("reads funding, ledger and builder approvals", async () => {
    const now = Date.now();
    expect(
      Array.isArray(await client.fundingHistory({ coin: "ETH-PERP", startTime: now - 86_400_000 })),
    ).toBe(true);
    expect(Array.isArray(await client.fundingHistory({ coin: "BTCSWP-USDYP", startTime: 0 }))).toBe(true);
    const predicted = await client.predictedFundings();
    expect(predicted.some(([coin]) => coin === "ETH")).toBe(true);
    expect(Array.isArray(await client.userFunding())).toBe(true);
    expect(Array.isArray(await client.userNonFundingLedgerUpdates())).toBe(true);
    expect(await client.approvedBuilders()).toEqual([]);
    expect(await client.maxBuilderFee({ builder: privateKeyToAccount(generatePrivateKey()).address })).toBe(
      0,
    );
  });
});

describe("actions", () => {
  it("rests a Gtc order, finds it by oid, cancels it", async () => {
    await client.updateLeverage({ instrument: "ETH-PERP", leverage: 5 });
    const { bid } = await bestBidAsk("ETH-PERP");
    const price = new D(bid).times("0.9");
    const r = expectStatus(
      await client.order({ instrument: "eth-perp", side: "buy", size: "0.01", price, tif: "Gtc" }),
      "resting",
    );
    expect(r.order.instrument).toBe("ETH-PERP");
    const open = await client.openOrders();
    expect(open.map((o) => o.oid)).toContain(r.oid);
    expect((await client.openOrdersAllDexes()).map((o) => o.oid)).toContain(r.oid);
    const status = await client.orderStatus(r.oid);
    expect(status.status).toBe("order");
    await client.cancel({ instrument: "ETH-PERP", oid: r.oid });
    const after = await client.orderStatus(r.oid);
    expect(after.status === "order" && after.order.status).toBe("canceled");
    await expect(client.cancel({ instrument: "ETH-PERP", oid: r.oid })).rejects.toThrow(RejectedError);
  });

  it("places and cancels by client order id", async () => {
    const { bid } = await bestBidAsk("ETH-PERP");
    const cloid = `0x${"ab".repeat(16)}` as const;
    const r = await client.order({
      instrument: "ETH-PERP",
      side: "buy",
      size: "0.01",
      price: new D(bid).times("0.9"),
      cloid,
    });
    expect(r.status).toBe("resting");
    expect((await client.orderStatus(cloid)).status).toBe("order");
    await client.cancelByCloid({ instrument: "ETH-PERP", cloid });
    expect(await client.openOrders()).toEqual([]);
  });

  it("fills a marketable IOC and shows the fill and the position", async () => {
    const start = Date.now() - 60_000;
    const r = expectStatus(
      await client.marketOrder({ instrument: "ETH-PERP", side: "buy", size: "0.02" }),
      "filled",
    );
    expect(r.totalSz).toBe("0.02");
    const fills = await client.userFills();
    expect(fills.some((f) => f.oid === r.oid && f.side === "B")).toBe(true);
    const since = await client.userFillsSince({ startTime: start });
    expect(since.some((f) => f.oid === r.oid)).toBe(true);
    expect((await client.userFillsByTime({ startTime: start })).length).toBeGreaterThan(0);
    const summary = await client.accountSummary();
    const eth = summary.positions.find((p) => p.instrument === "ETH-PERP");
    expect(eth?.szi).toBe("0.02");
    // reduce-only close
    const close = await client.marketOrder({
      instrument: "ETH-PERP",
      side: "sell",
      size: "0.02",
      reduceOnly: true,
    });
    expect(close.status).toBe("filled");
  });

  it("returns per-order refusals as values: post-only that would cross, reduce-only that would open", async () => {
    const { ask } = await bestBidAsk("ETH-PERP");
    const alo = expectStatus(
      await client.order({
        instrument: "ETH-PERP",
        side: "buy",
        size: "0.01",
        price: new D(ask).times("1.01"),
        tif: "Alo",
      }),
      "error",
    );
    expect(alo.message).toMatch(/Post only order would have immediately matched/);
    const ro = expectStatus(
      await client.marketOrder({ instrument: "ETH-PERP", side: "sell", size: "0.01", reduceOnly: true }),
      "error",
    );
    expect(ro.message).toMatch(/Reduce only/);
  });

  it("trades a YEX market and sets its leverage by our name (predecessor bug: it sent VXX-USDYP raw)", async () => {
    await client.updateLeverage({ instrument: "VXX-USDYP", leverage: 2 });
    const { bid } = await bestBidAsk("VXX-USDYP");
    const size = new D(20).div(bid).toDecimalPlaces(2, D.ROUND_UP);
    // A new account keeps yex's USDC apart and holds none there, until dex abstraction is on.
    const refused = expectStatus(
      await client.order({ instrument: "VXX-USDYP", side: "buy", size, price: new D(bid).times("0.95") }),
      "error",
    );
    expect(refused.message).toBe("Insufficient margin to place order. asset=120000");
    await client.enableDexAbstraction();
    const r = expectStatus(
      await client.order({ instrument: "VXX-USDYP", side: "buy", size, price: new D(bid).times("0.95") }),
      "resting",
    );
    expect((await client.openOrders({ dex: "yex" })).map((o) => o.coin)).toContain("yex:VXX");
    await client.cancel({ instrument: "vxx-usdyp", oid: r.oid });
  });

  it("approves a builder fee and attaches it to orders", async () => {
    const builder = privateKeyToAccount(generatePrivateKey()).address;
    await client.approveBuilderFee({ builder, maxFeeTenthsBps: 10 });
    expect(await client.maxBuilderFee({ builder })).toBe(10);
    expect((await client.approvedBuilders()).map((b) => b.toLowerCase())).toContain(builder.toLowerCase());
    const withBuilder = await HlClient.create({
      network: "paper",
      apiUrl: world.url,
      privateKey: key,
      builder: { address: builder, feeTenthsBps: 10 },
      env: { DATA_DIR: dataDir },
    });
    const r = expectStatus(
      await withBuilder.marketOrder({ instrument: "ETH-PERP", side: "buy", size: "0.01" }),
      "filled",
    );
    const fill = (await client.userFills()).find((f) => f.oid === r.oid);
    expect(fill?.builderFee).toBeDefined();
    await withBuilder.marketOrder({ instrument: "ETH-PERP", side: "sell", size: "0.01", reduceOnly: true });
  });

  it("sends and withdraws USDC, visible in the ledger", async () => {
    const friend = privateKeyToAccount(generatePrivateKey()).address;
    await client.usdSend({ destination: friend, amount: "5" });
    await client.withdraw({ destination: me, amount: "3" });
    const ledger = await client.userNonFundingLedgerUpdates();
    const kinds = ledger.map((u) => u.delta.type);
    expect(kinds).toEqual(expect.arrayContaining(["internalTransfer", "withdraw"])); // usdSend shows as internalTransfer
  });
});

describe("refusals surface as RejectedError with the exchange's message", () => {
  const order = (p: string) => ({
    orders: [{ a: 0, b: true, p, s: "0.01", r: false, t: { limit: { tif: "Gtc" as const } } }],
    grouping: "na" as const,
  });

  it("tampered signature", async () => {
    const tampering: IRequestTransport = {
      isTestnet: true,
      request: (endpoint, payload, signal) => {
        const body = payload as { action: { orders: { s: string }[] } };
        const first = body.action.orders[0];
        if (first) first.s = "0.02"; // changed after signing
        return client.transport.request(endpoint, payload, signal);
      },
    };
    const sdk = new ExchangeClient({ transport: tampering, wallet: privateKeyToAccount(key) });
    const { bid } = await bestBidAsk("ETH-PERP");
    const err = await sdk
      .order(order(new D(bid).times("0.9").toDecimalPlaces(1).toFixed()))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RejectedError);
    expect((err as Error).message).toMatch(/does not exist|signature/i);
  });

  it("reused nonce", async () => {
    const nonce = Date.now();
    const sdk = new ExchangeClient({
      transport: client.transport,
      wallet: privateKeyToAccount(key),
      nonceManager: () => nonce,
    });
    await sdk.updateLeverage({ asset: 0, isCross: true, leverage: 3 });
    const err = await sdk.updateLeverage({ asset: 0, isCross: true, leverage: 4 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RejectedError);
    expect((err as Error).message).toMatch(/nonce/i);
  });

  it("off-tick price (sent raw, past our rounding)", async () => {
    const err = await client.exchangeClient?.order(order("2500.123456")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RejectedError);
    expect((err as Error).message).toMatch(/invalid price/i);
  });

  it("builder fee above the approval, and above the 0.1 % cap", async () => {
    const builder = privateKeyToAccount(generatePrivateKey()).address;
    await client.approveBuilderFee({ builder, maxFeeTenthsBps: 5 });
    const over = await HlClient.create({
      network: "paper",
      apiUrl: world.url,
      privateKey: key,
      builder: { address: builder, feeTenthsBps: 50 },
      env: { DATA_DIR: dataDir },
    });
    const err = await over
      .marketOrder({ instrument: "ETH-PERP", side: "buy", size: "0.01" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RejectedError);
    expect((err as Error).message).toMatch(/builder/i);
    const capped = await client.exchangeClient
      ?.order({ ...order("1000"), builder: { b: builder, f: 500 } })
      .catch((e: unknown) => e);
    expect(capped).toBeInstanceOf(RejectedError);
    expect((capped as Error).message).toMatch(/builder/i);
  });
});

describe("WebSocket", () => {
  it("receives mids and the user's own fills", async () => {
    const mids = new Promise<Record<string, string>>((resolve) => {
      void client.stream.allMids((e) => resolve(e.mids));
    });
    expect(new D((await mids).ETH ?? "0").gt(0)).toBe(true);

    const fills: number[] = [];
    const gotFill = new Promise<void>((resolve) => {
      void client.stream.userFills(me, (e) => {
        if (e.isSnapshot) return;
        for (const f of e.fills) fills.push(f.oid);
        resolve();
      });
    });
    const trades = new Promise<void>((resolve) => {
      void client.stream.trades("ETH-PERP", () => resolve());
    });
    const updates = new Promise<void>((resolve) => {
      void client.stream.orderUpdates(me, () => resolve());
    });
    const candle = new Promise<string>((resolve) => {
      void client.stream.candle("ETH-PERP", "1m", (c) => resolve(c.s));
    });
    await new Promise((r) => setTimeout(r, 100)); // let the subscriptions be acknowledged
    const r = expectStatus(
      await client.marketOrder({ instrument: "ETH-PERP", side: "buy", size: "0.01" }),
      "filled",
    );
    await Promise.all([gotFill, trades, updates]);
    expect(await candle).toBe("ETH");
    expect(fills).toContain(r.oid);
    await client.marketOrder({ instrument: "ETH-PERP", side: "sell", size: "0.01", reduceOnly: true });
  });

  it("closes cleanly and refuses new subscriptions afterwards", async () => {
    const stream = client.stream;
    const book = await stream.l2Book("ETH-PERP", () => undefined);
    await book.unsubscribe();
    await client.close();
    await expect(stream.allMids(() => undefined)).rejects.toThrow(/closed/);
  });
});
