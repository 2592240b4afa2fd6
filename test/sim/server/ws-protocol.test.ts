import { ExchangeClient, InfoClient, SubscriptionClient, WebSocketTransport } from "@nktkas/hyperliquid";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { type SimWorld, startSimWorld } from "../../../src/sim/world.ts";

let world: SimWorld;
let transport: WebSocketTransport;

beforeAll(async () => {
  world = await startSimWorld({ seed: 5 });
  transport = new WebSocketTransport({
    url: world.wsUrl,
    isTestnet: true,
    // Node 20 has no global WebSocket; SDK 0.32 takes the constructor here.
    reconnect: { WebSocket: WebSocket as unknown as typeof globalThis.WebSocket, maxRetries: 0 },
  });
  await transport.ready();
});
afterAll(async () => {
  await transport.close();
  await world.close();
});

/** A raw client that collects every message it receives. */
async function rawClient(path = "/ws") {
  const ws = new WebSocket(world.wsUrl.replace(/\/ws$/, path));
  const messages: { channel: string; data: unknown }[] = [];
  ws.on("message", (d) => messages.push(JSON.parse(d.toString())));
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  const waitFor = async (pred: (m: { channel: string; data: unknown }) => boolean, ms = 3000) => {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline) {
      const hit = messages.find(pred);
      if (hit) return hit;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`no matching message; got ${JSON.stringify(messages.map((m) => m.channel))}`);
  };
  return { ws, messages, waitFor, send: (m: unknown) => ws.send(JSON.stringify(m)) };
}

function until<T>(register: (resolve: (v: T) => void) => void, ms = 5000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error("timed out")), ms);
    register((v) => {
      clearTimeout(t);
      resolve(v);
    });
  });
}

describe("WebSocket through the SDK", () => {
  it("answers info posts", async () => {
    const info = new InfoClient({ transport });
    const mids = await info.allMids();
    expect(Number(mids.BTC)).toBeGreaterThan(0);
    const book = await info.l2Book({ coin: "ETH" });
    expect(book!.levels[0].length).toBeGreaterThan(0);
  });

  it("pushes allMids, l2Book and trades", async () => {
    const subs = new SubscriptionClient({ transport });
    const mids = until<Record<string, string>>(async (resolve) => {
      await subs.allMids((e) => resolve(e.mids));
    });
    const book = until<{ coin: string }>(async (resolve) => {
      await subs.l2Book({ coin: "BTC" }, (e) => resolve(e));
    });
    expect(Object.keys(await mids)).toContain("ETH");
    expect((await book).coin).toBe("BTC");
    const trades = until<{ coin: string }[]>(async (resolve) => {
      await subs.trades({ coin: "SOL" }, (e) => resolve(e));
    });
    const candle = until<{ s: string; i: string; v: string }>(async (resolve) => {
      await subs.candle({ coin: "SOL", interval: "1m" }, (e) => resolve(e));
    });
    // Cross the spread so a trade happens now rather than waiting for house flow.
    const wallet = privateKeyToAccount(generatePrivateKey());
    await new InfoClient({ transport }).clearinghouseState({ user: wallet.address });
    const exchange = new ExchangeClient({ transport, wallet });
    const ask = Number((await new InfoClient({ transport }).l2Book({ coin: "SOL" }))!.levels[1][0]!.px);
    const res = await exchange.order({
      orders: [
        { a: 5, b: true, p: (ask * 1.01).toFixed(2), s: "0.5", r: false, t: { limit: { tif: "Ioc" } } },
      ],
      grouping: "na",
    });
    expect(res.response.data.statuses[0]).toHaveProperty("filled");
    expect((await trades)[0]!.coin).toBe("SOL");
    expect(await candle).toMatchObject({ s: "SOL", i: "1m" });
    expect(Number((await candle).v)).toBeGreaterThan(0);
  });

  it("pushes asset contexts (main dex and HIP-3)", async () => {
    const subs = new SubscriptionClient({ transport });
    const active = until<{ coin: string; ctx: { oraclePx: string } }>(async (resolve) => {
      await subs.activeAssetCtx({ coin: "yex:BTCSWP" }, (e) => resolve(e));
    });
    const all = until<{ dex: string; ctxs: unknown[] }>(async (resolve) => {
      await subs.assetCtxs((e) => resolve(e));
    });
    expect((await active).coin).toBe("yex:BTCSWP");
    expect(Number((await active).ctx.oraclePx)).toBeGreaterThan(0);
    expect((await all).dex).toBe("");
    expect((await all).ctxs.length).toBeGreaterThanOrEqual(8);
  });

  it("pushes a userFills snapshot, then the user's new fills and order updates", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const subs = new SubscriptionClient({ transport });
    const events: { isSnapshot?: boolean; fills: unknown[] }[] = [];
    await subs.userFills({ user: wallet.address }, (e) => events.push(e));
    const updates: unknown[] = [];
    await subs.orderUpdates({ user: wallet.address }, (e) => updates.push(...e));
    await until<void>((resolve) => {
      const check = () => (events.length > 0 ? resolve() : setTimeout(check, 10));
      check();
    });
    expect(events[0]).toMatchObject({ isSnapshot: true, fills: [] });

    const exchange = new ExchangeClient({ transport, wallet });
    const ask = Number((await new InfoClient({ transport }).l2Book({ coin: "ETH" }))!.levels[1][0]!.px);
    await exchange.order({
      orders: [
        { a: 1, b: true, p: (ask * 1.01).toFixed(1), s: "0.01", r: false, t: { limit: { tif: "Ioc" } } },
      ],
      grouping: "na",
    });
    await until<void>((resolve) => {
      const check = () => (events.length > 1 && updates.length > 0 ? resolve() : setTimeout(check, 10));
      check();
    });
    expect(events[1]!.isSnapshot).toBeUndefined();
    expect(events[1]!.fills[0]).toMatchObject({ coin: "ETH", side: "B", sz: "0.01" });
  });

  it("pushes non-funding ledger updates: a snapshot, then each deposit and withdrawal", async () => {
    const user = privateKeyToAccount(generatePrivateKey()).address;
    const subs = new SubscriptionClient({ transport });
    type Update = { delta: { type: string; usdc: string } };
    const events: { isSnapshot?: true; nonFundingLedgerUpdates: Update[] }[] = [];
    await subs.userNonFundingLedgerUpdates({ user }, (e) => events.push(e as (typeof events)[number]));
    await subs.notification({ user }, () => undefined);
    await until<void>((resolve) => {
      const check = () => (events.length > 0 ? resolve() : setTimeout(check, 10));
      check();
    });
    // Subscribing opened the account: its starting balance is the first deposit.
    expect(events[0]!.isSnapshot).toBe(true);
    expect(events[0]!.nonFundingLedgerUpdates.map((u) => u.delta.type)).toEqual(["deposit"]);
    world.venue.deposit(user.toLowerCase() as `0x${string}`, "250");
    world.venue.withdraw(user.toLowerCase() as `0x${string}`, "40");
    await until<void>((resolve) => {
      const pushed = () => events.slice(1).flatMap((e) => e.nonFundingLedgerUpdates);
      const check = () => (pushed().length >= 2 ? resolve() : setTimeout(check, 10));
      check();
    });
    const pushed = events.slice(1);
    expect(pushed.every((e) => e.isSnapshot === undefined)).toBe(true);
    expect(
      pushed.flatMap((e) => e.nonFundingLedgerUpdates).map((u) => [u.delta.type, Number(u.delta.usdc)]),
    ).toEqual([
      ["deposit", 250],
      ["withdraw", 40],
    ]);
  });
});

describe("WebSocket wire protocol", () => {
  it("ping → pong, subscribe ack echoes the subscription, unsubscribe ack, and errors", async () => {
    const c = await rawClient("/");
    c.send({ method: "ping" });
    await c.waitFor((m) => m.channel === "pong");

    const sub = { type: "l2Book", coin: "ETH" };
    c.send({ method: "subscribe", subscription: sub });
    const ack = await c.waitFor((m) => m.channel === "subscriptionResponse");
    expect(ack.data).toEqual({ method: "subscribe", subscription: sub });
    const snap = await c.waitFor((m) => m.channel === "l2Book");
    expect((snap.data as { coin: string }).coin).toBe("ETH");

    c.send({ method: "subscribe", subscription: sub });
    const dup = await c.waitFor((m) => m.channel === "error");
    expect(dup.data).toBe(`Already subscribed: ${JSON.stringify(sub)}`);

    c.send({ method: "unsubscribe", subscription: sub });
    await c.waitFor(
      (m) => m.channel === "subscriptionResponse" && (m.data as { method: string }).method === "unsubscribe",
    );

    c.messages.length = 0;
    c.send({ method: "subscribe", subscription: { type: "nope" } });
    expect((await c.waitFor((m) => m.channel === "error")).data).toMatch(/^Invalid subscription/);
    for (const junk of ["null", "{oops", '{"method":"teleport"}']) {
      c.messages.length = 0;
      c.ws.send(junk);
      expect((await c.waitFor((m) => m.channel === "error")).data).toBe(
        `Error parsing JSON into valid websocket request: ${junk}`,
      );
    }
    c.ws.close();
  });

  it("post: info and action responses, and errors, in the exchange's shapes", async () => {
    const c = await rawClient();
    c.send({ method: "post", id: 7, request: { type: "info", payload: { type: "allMids" } } });
    const info = (await c.waitFor((m) => m.channel === "post")).data as {
      id: number;
      response: { type: string; payload: { type: string; data: unknown } };
    };
    expect(info.id).toBe(7);
    expect(info.response.type).toBe("info");
    expect(info.response.payload.type).toBe("allMids");
    expect(Object.keys(info.response.payload.data as object)).toContain("BTC");

    c.send({
      method: "post",
      id: 8,
      request: {
        type: "action",
        payload: {
          action: { type: "cancel", cancels: [] },
          nonce: Date.now(),
          signature: { r: "0x1", s: "0x2", v: 27 },
        },
      },
    });
    const action = (await c.waitFor((m) => m.channel === "post" && (m.data as { id: number }).id === 8))
      .data as {
      response: { type: string; payload: { status: string } };
    };
    expect(action.response.type).toBe("action");
    expect(action.response.payload.status).toBe("err");

    c.send({ method: "post", id: 9, request: { type: "info", payload: { nope: 1 } } });
    const bad = (await c.waitFor((m) => m.channel === "post" && (m.data as { id: number }).id === 9))
      .data as {
      response: { type: string; payload: string };
    };
    expect(bad.response.type).toBe("error");
    c.ws.close();
  });

  it("coalesces a burst of book changes into few messages", async () => {
    const c = await rawClient();
    c.send({ method: "subscribe", subscription: { type: "l2Book", coin: "AVAX" } });
    await c.waitFor((m) => m.channel === "l2Book");
    c.messages.length = 0;
    // Ten orders in one go (synchronously, as a burst arrives between two flushes).
    const user = privateKeyToAccount(generatePrivateKey()).address.toLowerCase() as `0x${string}`;
    world.venue.deposit(user, "1000");
    for (let i = 0; i < 10; i++) {
      const r = world.venue.exchange(
        {
          type: "order",
          orders: [
            { a: 6, b: true, p: String(15 + i * 0.1), s: "1", r: false, t: { limit: { tif: "Gtc" } } },
          ],
          grouping: "na",
        },
        user,
        i,
      );
      expect(r.status).toBe("ok");
    }
    await new Promise((r) => setTimeout(r, 100));
    const books = c.messages.filter((m) => m.channel === "l2Book");
    expect(books.length).toBeGreaterThan(0);
    // One flush for the burst (plus at most one house requote that may land in the window).
    expect(books.length).toBeLessThanOrEqual(2);
    c.ws.close();
  });
});
