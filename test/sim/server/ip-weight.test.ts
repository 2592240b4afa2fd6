import { Agent, fetch as undiciFetch } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HlClient, RateBudget, RateLimitedError } from "../../../src/exchange/index.ts";
import { IpWeightLimiter } from "../../../src/sim/server/ip-weight.ts";
import { type SimWorld, startSimWorld } from "../../../src/sim/world.ts";

const USER = "0x00000000000000000000000000000000000000b1";

describe("per-IP weight limiter", () => {
  it("refuses what would bring the last 60 s past a minute's weight, however the minute was spent", () => {
    let t = 0;
    const limiter = new IpWeightLimiter(1200, () => t);
    for (let i = 0; i < 60; i++) expect(limiter.take("a", 20)).toBe(true);
    expect(limiter.take("a", 2)).toBe(false);
    expect(limiter.take("b", 20)).toBe(true);
    // A bucket would have 20 back after a second; the window still holds the whole 1200.
    t = 1000;
    expect(limiter.take("a", 20)).toBe(false);
    t = 30_000;
    expect(limiter.take("a", 1)).toBe(false);
    t = 59_999;
    expect(limiter.take("a", 1)).toBe(false);
    t = 60_000; // the first second's 1200 leaves the window
    for (let i = 0; i < 60; i++) expect(limiter.take("a", 20)).toBe(true);
    expect(limiter.take("a", 1)).toBe(false);
  });

  it("frees weight second by second as it ages out, and lets a post-hoc charge go into debt", () => {
    let t = 0;
    const limiter = new IpWeightLimiter(100, () => t);
    expect(limiter.take("a", 40)).toBe(true);
    t = 10_000;
    expect(limiter.take("a", 60)).toBe(true);
    t = 60_000;
    expect(limiter.take("a", 40)).toBe(true);
    expect(limiter.take("a", 1)).toBe(false);
    limiter.charge("a", 150); // owed after the answer: 250 in the window
    t = 70_000;
    expect(limiter.take("a", 1)).toBe(false);
  });
});

describe("a default sim world", () => {
  let world: SimWorld;
  let off: SimWorld;
  const agents: Agent[] = [];
  beforeAll(async () => {
    [world, off] = await Promise.all([
      startSimWorld({ historyDays: 0, houseMakers: false, liveCoins: ["BTC"] }),
      // The one world here that asks for no limits, to show the switch.
      startSimWorld({ historyDays: 0, houseMakers: false, liveCoins: ["BTC"], limits: false }),
    ]);
  });
  afterAll(async () => {
    await Promise.all(agents.map((a) => a.close()));
    await Promise.all([world.close(), off.close()]);
  });

  async function metas(url: string, localAddress: string, n: number): Promise<number[]> {
    const dispatcher = new Agent({ localAddress });
    agents.push(dispatcher);
    const statuses: number[] = [];
    for (let i = 0; i < n; i++) {
      const res = await undiciFetch(`${url}/info`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ type: "meta" }),
        dispatcher,
      });
      statuses.push(res.status);
      const text = await res.text();
      if (res.status !== 200)
        expect({ type: res.headers.get("content-type"), text }).toEqual({
          type: "application/json",
          text: "null",
        });
    }
    return statuses;
  }

  it("holds every source address to the exchange's 1200 weight a minute and answers 429 with null past it", async () => {
    // meta weighs 20: sixty of them are the minute's 1200, the next one is refused.
    const statuses = await metas(world.url, "127.0.0.7", 61);
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    expect(statuses[60]).toBe(429);
    const seen = (await (await fetch(`${world.url}/sim/weight`)).json()) as {
      limitPerMinute: number;
      addresses: { address: string; lastMinute: number; refused: number }[];
    };
    expect(seen.limitPerMinute).toBe(1200);
    expect(seen.addresses.find((a) => a.address === "127.0.0.7")).toMatchObject({
      lastMinute: 1200,
      refused: 1,
    });
  });

  it("with limits off answers past the budget, and still reports the weight spent", async () => {
    const statuses = await metas(off.url, "127.0.0.8", 61);
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(off.weight()).toMatchObject({
      limitPerMinute: null,
      addresses: [{ address: "127.0.0.8", lastMinute: 1220, total: 1220, refused: 0 }],
    });
  });
});

describe("sim world with --ip-weight-limit", () => {
  let world: SimWorld;
  const agents: Agent[] = [];
  beforeAll(async () => {
    world = await startSimWorld({ historyDays: 0, houseMakers: false, ipWeightLimit: 100 });
  });
  afterAll(async () => {
    await Promise.all(agents.map((a) => a.close()));
    await world.close();
  });

  function from(localAddress: string) {
    const dispatcher = new Agent({ localAddress });
    agents.push(dispatcher);
    return async (body: unknown) => {
      const res = await undiciFetch(`${world.url}/info`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        dispatcher,
      });
      return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
    };
  }

  it("counts the exchange's weight per request type against the source address and answers 429 with null", async () => {
    const a = from("127.0.0.2");
    const b = from("127.0.0.3");
    // meta weighs 20, clearinghouseState 2: 4 × 20 + 10 × 2 = 100, the whole minute's budget
    for (let i = 0; i < 4; i++) expect((await a({ type: "meta" })).status).toBe(200);
    for (let i = 0; i < 10; i++)
      expect((await a({ type: "clearinghouseState", user: USER })).status).toBe(200);
    const refused = await a({ type: "clearinghouseState", user: USER });
    expect(refused).toEqual({ status: 429, type: "application/json", text: "null" });
    // Another source address has its own budget.
    expect((await b({ type: "clearinghouseState", user: USER })).status).toBe(200);
  });

  it("counts repeated book requests too, though the info cache answers them", async () => {
    const c = from("127.0.0.5");
    // l2Book weighs 2: 50 of them are the minute's budget
    for (let i = 0; i < 50; i++) expect((await c({ type: "l2Book", coin: "BTC" })).status).toBe(200);
    expect((await c({ type: "l2Book", coin: "BTC" })).status).toBe(429);
  });

  it("the exchange client binds the source address it is given and reports a refusal as rate limited", async () => {
    const client = await HlClient.create({
      network: "paper",
      apiUrl: world.url,
      paperWallet: false,
      env: {},
      localAddress: "127.0.0.4",
      retry: { attempts: 1 },
      budget: new RateBudget({ weightPerMinute: 1_000_000 }),
    });
    try {
      for (let i = 0; i < 50; i++) await client.clearinghouseState({ user: USER });
      await expect(client.clearinghouseState({ user: USER })).rejects.toBeInstanceOf(RateLimitedError);
      // 127.0.0.1 (the tests' own address) was never charged.
      const own = await fetch(`${world.url}/info`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ type: "clearinghouseState", user: USER }),
      });
      expect(own.status).toBe(200);
    } finally {
      await client.close();
    }
  });
});
