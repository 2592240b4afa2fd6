import { readFileSync } from "node:fs";
import { ExchangeClient, InfoClient, SubscriptionClient, WebSocketTransport } from "@nktkas/hyperliquid";
import { Ajv } from "ajv";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { type SimWorld, startSimWorld } from "../../../src/sim/world.ts";
import { SCHEMA_CACHE, type SchemaCache } from "../../conformance/sdk-schema-source.ts";

/** The account streams (clearinghouseState, openOrders, userEvents, userFundings) through the SDK. */

let world: SimWorld;
let transport: WebSocketTransport;

beforeAll(async () => {
  world = await startSimWorld({
    seed: 11,
    startMs: Date.UTC(2026, 10, 22, 0, 30),
    liveCoins: ["BTC", "ETH"],
  });
  transport = new WebSocketTransport({
    url: world.wsUrl,
    isTestnet: true,
    reconnect: { WebSocket: WebSocket as unknown as typeof globalThis.WebSocket, maxRetries: 0 },
  });
  await transport.ready();
});
afterAll(async () => {
  await transport.close();
  await world.close();
});

async function waitFor<T>(list: T[], pred: (x: T) => boolean, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const hit = list.find(pred);
    if (hit !== undefined) return hit;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out; got ${JSON.stringify(list).slice(0, 400)}`);
}

describe("account streams", () => {
  it("clearinghouseState and openOrders: a snapshot, then the state after each change", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const user = wallet.address.toLowerCase();
    const subs = new SubscriptionClient({ transport });
    const states: { dex: string; user: string; clearinghouseState: { assetPositions: unknown[] } }[] = [];
    const orders: { dex: string; user: string; orders: { oid: number }[] }[] = [];
    await subs.clearinghouseState({ user: wallet.address }, (e) => states.push(e));
    await subs.openOrders({ user: wallet.address }, (e) => orders.push(e));
    await waitFor(states, (s) => s.user === user && s.dex === "");
    await waitFor(orders, (o) => o.orders.length === 0);

    const exchange = new ExchangeClient({ transport, wallet });
    const bid = Number((await new InfoClient({ transport }).l2Book({ coin: "ETH" }))!.levels[0][0]!.px);
    const res = await exchange.order({
      orders: [
        { a: 1, b: true, p: (bid * 0.95).toFixed(1), s: "0.01", r: false, t: { limit: { tif: "Gtc" } } },
      ],
      grouping: "na",
    });
    const oid = (res.response.data.statuses[0] as { resting: { oid: number } }).resting.oid;
    await waitFor(orders, (o) => o.orders.some((x) => x.oid === oid));
    const ask = Number((await new InfoClient({ transport }).l2Book({ coin: "ETH" }))!.levels[1][0]!.px);
    await exchange.order({
      orders: [
        { a: 1, b: true, p: (ask * 1.01).toFixed(1), s: "0.01", r: false, t: { limit: { tif: "Ioc" } } },
      ],
      grouping: "na",
    });
    await waitFor(states, (s) => s.clearinghouseState.assetPositions.length === 1);
  });

  it("userEvents carries fills; userFundings a snapshot, then each hourly payment", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const user = wallet.address.toLowerCase();
    const subs = new SubscriptionClient({ transport });
    const events: Record<string, unknown>[] = [];
    const fundings: { user: string; isSnapshot?: true; fundings: { coin: string; usdc: string }[] }[] = [];
    await subs.userEvents({ user: wallet.address }, (e) => events.push(e));
    await subs.userFundings({ user: wallet.address }, (e) => fundings.push(e));
    await waitFor(fundings, (f) => f.isSnapshot === true && f.user === user);

    const exchange = new ExchangeClient({ transport, wallet });
    const ask = Number((await new InfoClient({ transport }).l2Book({ coin: "BTC" }))!.levels[1][0]!.px);
    await exchange.order({
      orders: [
        {
          a: 0,
          b: true,
          p: String(Math.round(ask * 1.01)),
          s: "0.001",
          r: false,
          t: { limit: { tif: "Ioc" } },
        },
      ],
      grouping: "na",
    });
    const fill = (await waitFor(events, (e) => "fills" in e)) as { fills: { coin: string }[] };
    expect(fill.fills[0]!.coin).toBe("BTC");

    world.advance(60 * 60_000); // past the next UTC hour: funding is settled
    const paid = await waitFor(fundings, (f) => f.isSnapshot === undefined && f.fundings.length > 0);
    expect(paid.fundings[0]!.coin).toBe("BTC");
    const viaEvents = (await waitFor(events, (e) => "funding" in e)) as { funding: { coin: string } };
    expect(viaEvents.funding.coin).toBe("BTC");
  });

  it("userEvents reports a liquidation and the orders it cancelled", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const subs = new SubscriptionClient({ transport });
    const events: Record<string, unknown>[] = [];
    await subs.userEvents({ user: wallet.address }, (e) => events.push(e));
    await new InfoClient({ transport }).clearinghouseState({ user: wallet.address });
    const exchange = new ExchangeClient({ transport, wallet });
    await exchange.updateLeverage({ asset: 0, isCross: true, leverage: 40 });
    const book = (await new InfoClient({ transport }).l2Book({ coin: "BTC" }))!;
    const ask = Number(book.levels[1][0]!.px);
    const bid = Number(book.levels[0][0]!.px);
    const res = await exchange.order({
      orders: [
        { a: 0, b: true, p: String(Math.round(ask * 1.01)), s: "3", r: false, t: { limit: { tif: "Ioc" } } },
        {
          a: 0,
          b: true,
          p: String(Math.round(bid * 0.8)),
          s: "0.001",
          r: false,
          t: { limit: { tif: "Gtc" } },
        },
      ],
      grouping: "na",
    });
    expect(res.response.data.statuses[0]).toHaveProperty("filled");
    world.setPrice("BTC", String(Math.round(ask * 0.9)));
    world.advance(300_000);
    const liq = (await waitFor(events, (e) => "liquidation" in e)) as {
      liquidation: { liquidated_user: string; liquidated_ntl_pos: string };
    };
    expect(liq.liquidation.liquidated_user).toBe(wallet.address.toLowerCase());
    expect(Number(liq.liquidation.liquidated_ntl_pos)).toBeGreaterThan(0);
    const cancel = (await waitFor(events, (e) => "nonUserCancel" in e)) as {
      nonUserCancel: { coin: string }[];
    };
    expect(cancel.nonUserCancel[0]!.coin).toBe("BTC");
    // Both in the SDK's shape of the event.
    const cache = JSON.parse(readFileSync(SCHEMA_CACHE, "utf8")) as SchemaCache;
    const valid = new Ajv({ strict: false }).compile(cache.schemas["subscription/userEvents"]!);
    for (const e of [liq, cancel]) expect(valid(e), JSON.stringify(valid.errors)).toBe(true);
  });

  it("webData2 and activeAssetData: a snapshot, then the state after a change, each as the SDK's types say", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const subs = new SubscriptionClient({ transport });
    const web: { clearinghouseState: { assetPositions: unknown[] } }[] = [];
    const active: { user: string; coin: string; leverage: { value: number } }[] = [];
    await subs.webData2({ user: wallet.address }, (e) => web.push(e as never));
    await subs.activeAssetData({ user: wallet.address, coin: "ETH" }, (e) => active.push(e as never));
    await waitFor(web, () => true);
    await waitFor(active, (a) => a.coin === "ETH");
    const exchange = new ExchangeClient({ transport, wallet });
    await exchange.updateLeverage({ asset: 1, isCross: true, leverage: 7 });
    await waitFor(active, (a) => a.leverage.value === 7);
    const ask = Number((await new InfoClient({ transport }).l2Book({ coin: "ETH" }))!.levels[1][0]!.px);
    await exchange.order({
      orders: [
        { a: 1, b: true, p: (ask * 1.01).toFixed(1), s: "0.01", r: false, t: { limit: { tif: "Ioc" } } },
      ],
      grouping: "na",
    });
    await waitFor(web, (w) => w.clearinghouseState.assetPositions.length === 1);
    const cache = JSON.parse(readFileSync(SCHEMA_CACHE, "utf8")) as SchemaCache;
    const ajv = new Ajv({ strict: false });
    const webValid = ajv.compile(cache.schemas["subscription/webData2"]!);
    const activeValid = ajv.compile(cache.schemas["subscription/activeAssetData"]!);
    expect(
      web.every((w) => webValid(w)),
      JSON.stringify(webValid.errors),
    ).toBe(true);
    expect(
      active.every((a) => activeValid(a)),
      JSON.stringify(activeValid.errors),
    ).toBe(true);
  });
});
