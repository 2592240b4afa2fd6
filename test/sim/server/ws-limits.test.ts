import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { WS_LIMITS, WsLimiter } from "../../../src/sim/server/ws-limits.ts";
import { type SimWorld, startSimWorld } from "../../../src/sim/world.ts";

const user = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

describe("per-IP WebSocket limiter", () => {
  it("holds the exchange's documented figures", () => {
    expect(WS_LIMITS).toEqual({
      connections: 10,
      newConnectionsPerMinute: 30,
      subscriptions: 1000,
      users: 10,
      messagesPerMinute: 2000,
      inflightPosts: 100,
    });
  });

  it("refuses the 11th connection held by an address, not another address's, and frees a slot on close", () => {
    const limiter = new WsLimiter(WS_LIMITS, () => 0);
    for (let i = 0; i < 10; i++) expect(limiter.open("a")).toBeUndefined();
    expect(limiter.open("a")).toBe("Cannot open more than 10 connections.");
    expect(limiter.open("b")).toBeUndefined();
    limiter.close("a");
    expect(limiter.open("a")).toBeUndefined();
    expect(limiter.report().find((r) => r.address === "a")).toMatchObject({
      connections: 10,
      peakConnections: 10,
      refused: { connections: 1 },
    });
  });

  it("refuses the 31st new connection within a minute, counting refused attempts, and allows again a minute later", () => {
    let t = 0;
    const limiter = new WsLimiter(WS_LIMITS, () => t);
    for (let i = 0; i < 30; i++) {
      expect(limiter.open("a")).toBeUndefined();
      limiter.close("a");
    }
    expect(limiter.open("a")).toBe("Cannot open more than 30 new connections per minute.");
    t = 59_000;
    expect(limiter.open("a")).toBe("Cannot open more than 30 new connections per minute.");
    t = 60_000; // second 0 has left the window; the attempt refused at 59 s is still in it
    expect(limiter.open("a")).toBeUndefined();
    expect(limiter.report()[0]).toMatchObject({
      newConnectionsLastMinute: 2,
      refused: { newConnections: 2 },
    });
  });

  it("refuses the 1001st subscription across an address's connections with the exchange's text", () => {
    const limiter = new WsLimiter(WS_LIMITS, () => 0);
    for (let i = 0; i < 1000; i++) expect(limiter.subscribe("a", "l2Book", undefined)).toBeUndefined();
    expect(limiter.subscribe("a", "trades", undefined)).toBe("Cannot subscribe to more than 1000 channels.");
    limiter.unsubscribe("a", "l2Book", undefined);
    expect(limiter.subscribe("a", "trades", undefined)).toBeUndefined();
    expect(limiter.report()[0]!.subscriptionsByType).toEqual({ l2Book: 999, trades: 1 });
  });

  it("refuses an 11th distinct user in user subscriptions, not a user already tracked, and frees it when its last subscription ends", () => {
    const limiter = new WsLimiter(WS_LIMITS, () => 0);
    for (let i = 1; i <= 10; i++) expect(limiter.subscribe("a", "userFills", user(i))).toBeUndefined();
    expect(limiter.subscribe("a", "openOrders", user(11))).toBe("Cannot track more than 10 total users.");
    // Same user, another stream; and the address is compared without case.
    expect(limiter.subscribe("a", "openOrders", user(1).toUpperCase().replace("0X", "0x"))).toBeUndefined();
    expect(limiter.subscribe("a", "l2Book", undefined)).toBeUndefined();
    limiter.unsubscribe("a", "userFills", user(1));
    expect(limiter.subscribe("a", "userFills", user(11))).toBe("Cannot track more than 10 total users.");
    limiter.unsubscribe("a", "openOrders", user(1));
    expect(limiter.subscribe("a", "userFills", user(11))).toBeUndefined();
    expect(limiter.report()[0]).toMatchObject({ users: 10, peakUsers: 10, refused: { users: 2 } });
  });

  it("refuses the 2001st message of a minute, not counting the refused ones", () => {
    let t = 0;
    const limiter = new WsLimiter(WS_LIMITS, () => t);
    for (let i = 0; i < 2000; i++) expect(limiter.message("a")).toBeUndefined();
    expect(limiter.message("a")).toBe("Cannot send more than 2000 messages per minute.");
    t = 60_000;
    expect(limiter.message("a")).toBeUndefined();
    expect(limiter.report()[0]).toMatchObject({ messagesLastMinute: 1, refused: { messages: 1 } });
  });

  it("refuses a 101st post in flight, naming its id", () => {
    const limiter = new WsLimiter(WS_LIMITS, () => 0);
    for (let i = 0; i < 100; i++) expect(limiter.postStart("a", i)).toBeUndefined();
    expect(limiter.postStart("a", 1234)).toBe("too many pending post requests id=1234");
    limiter.postEnd("a");
    expect(limiter.postStart("a", 1235)).toBeUndefined();
  });

  it("without limits counts everything and refuses nothing", () => {
    const limiter = new WsLimiter(undefined, () => 0);
    for (let i = 0; i < 40; i++) expect(limiter.open("a")).toBeUndefined();
    for (let i = 1; i <= 20; i++) expect(limiter.subscribe("a", "userFills", user(i))).toBeUndefined();
    expect(limiter.report()[0]).toMatchObject({ connections: 40, newConnectionsLastMinute: 40, users: 20 });
  });
});

/** A raw client on loopback that keeps what it receives and how it was closed. */
async function connect(url: string) {
  const ws = new WebSocket(url);
  const messages: { channel: string; data: unknown }[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once("close", (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  ws.on("message", (d) => messages.push(JSON.parse(d.toString())));
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  const next = async (pred: (m: { channel: string; data: unknown }) => boolean) => {
    for (let i = 0; i < 200; i++) {
      const hit = messages.find(pred);
      if (hit) return hit;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`no such message in ${JSON.stringify(messages.map((m) => m.channel))}`);
  };
  return { ws, messages, closed, next, send: (m: unknown) => ws.send(JSON.stringify(m)) };
}

describe("the sim world's WebSocket over loopback", () => {
  let world: SimWorld;
  beforeAll(async () => {
    // Small figures, so that each limit is reached in a few messages; the texts follow the figures.
    world = await startSimWorld({
      historyDays: 0,
      houseMakers: false,
      liveCoins: ["BTC"],
      wsLimits: {
        connections: 2,
        newConnectionsPerMinute: 4,
        subscriptions: 3,
        users: 1,
        messagesPerMinute: 12,
        inflightPosts: 100,
      },
    });
  });
  afterAll(async () => {
    await world.close();
  });

  it("refuses a subscription, a user and a message past the limits with the exchange's error messages, and a connection with close 1008", async () => {
    const a = await connect(world.wsUrl);
    const b = await connect(world.wsUrl);
    try {
      a.send({ method: "subscribe", subscription: { type: "userFills", user: user(1) } });
      await a.next((m) => m.channel === "subscriptionResponse");
      // Another connection of the same address: the user count is the address's.
      b.send({ method: "subscribe", subscription: { type: "orderUpdates", user: user(2) } });
      expect((await b.next((m) => m.channel === "error")).data).toBe("Cannot track more than 1 total users.");
      b.send({ method: "subscribe", subscription: { type: "l2Book", coin: "BTC" } });
      b.send({ method: "subscribe", subscription: { type: "trades", coin: "BTC" } });
      await b.next((m) => m.channel === "subscriptionResponse");
      b.send({ method: "subscribe", subscription: { type: "allMids" } });
      expect(
        (await b.next((m) => m.channel === "error" && m.data !== "Cannot track more than 1 total users."))
          .data,
      ).toBe("Cannot subscribe to more than 3 channels.");

      // A third connection while two are held: the handshake completes, then the exchange's close.
      const c = await connect(world.wsUrl);
      expect(await c.closed).toEqual({ code: 1008, reason: "Cannot open more than 2 connections." });

      // 5 messages so far; the 13th of the minute is refused and not answered.
      for (let i = 0; i < 8; i++) a.send({ method: "ping" });
      expect((await a.next((m) => m.channel === "error")).data).toBe(
        "Cannot send more than 12 messages per minute.",
      );
      expect(a.messages.filter((m) => m.channel === "pong")).toHaveLength(7);

      const use = (await (await fetch(`${world.url}/sim/ws-limits`)).json()) as {
        limits: unknown;
        addresses: {
          address: string;
          connections: number;
          subscriptions: number;
          users: number;
          refused: unknown;
        }[];
      };
      expect(use.limits).toMatchObject({ connections: 2, users: 1 });
      expect(use.addresses[0]).toMatchObject({
        address: "127.0.0.1",
        connections: 2,
        subscriptions: 3,
        users: 1,
        refused: {
          connections: 1,
          subscriptions: 1,
          users: 1,
          messages: 1,
          newConnections: 0,
          inflightPosts: 0,
        },
      });
    } finally {
      a.ws.close();
      b.ws.close();
    }
    // Closing gives the connections, subscriptions and users back.
    for (let i = 0; i < 100 && world.wsLimits().addresses[0]!.connections > 0; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(world.wsLimits().addresses[0]).toMatchObject({ connections: 0, subscriptions: 0, users: 0 });
  });
});

describe("switching the WebSocket limits off", () => {
  it("with the world's limits off, or only these, they are counted and not enforced; the weight limit stays with the latter", async () => {
    const [allOff, wsOff] = await Promise.all([
      startSimWorld({ historyDays: 0, houseMakers: false, liveCoins: ["BTC"], limits: false }),
      startSimWorld({ historyDays: 0, houseMakers: false, liveCoins: ["BTC"], wsLimits: false }),
    ]);
    try {
      expect(allOff.wsLimits().limits).toBeNull();
      expect(allOff.weight().limitPerMinute).toBeNull();
      expect(wsOff.wsLimits().limits).toBeNull();
      expect(wsOff.weight().limitPerMinute).toBe(1200);
      const a = await connect(wsOff.wsUrl);
      for (let i = 1; i <= 11; i++)
        a.send({ method: "subscribe", subscription: { type: "userFills", user: user(i) } });
      for (
        let i = 0;
        i < 200 && a.messages.filter((m) => m.channel === "subscriptionResponse").length < 11;
        i++
      )
        await new Promise((r) => setTimeout(r, 10));
      expect(a.messages.filter((m) => m.channel === "error")).toEqual([]);
      expect(wsOff.wsLimits().addresses[0]).toMatchObject({ users: 11, subscriptions: 11 });
      a.ws.close();
    } finally {
      await Promise.all([allOff.close(), wsOff.close()]);
    }
  });
});
