import { ExchangeClient, HttpTransport, InfoClient } from "@nktkas/hyperliquid";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeBuilderFillsFile } from "../../../src/sim/server/builder-fills-file.ts";
import { type SimWorld, startSimWorld } from "../../../src/sim/world.ts";

/** LINK's asset id on mainnet (and here). */
const LINK = 18;

let world: SimWorld;
const DAY = 86_400_000;
/** Start late in a UTC day so it closes after a short advance. */
const START = Date.UTC(2026, 10, 20, 18, 0);

beforeAll(async () => {
  world = await startSimWorld({
    seed: 4,
    startMs: START,
    liveCoins: ["BTC", "ETH", "SOL", "LINK", "yex:BTCSWP"],
  });
});
afterAll(() => world.close());

async function post(
  path: string,
  body: unknown,
): Promise<{ status: number; type: string | null; json: unknown; text: string }> {
  const r = await fetch(`${world.url}${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await r.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: r.status, type: r.headers.get("content-type"), json, text };
}

describe("/info", () => {
  it("answers JSON in Hyperliquid's shapes", async () => {
    const mids = await post("/info", { type: "allMids" });
    expect(mids.status).toBe(200);
    expect(mids.type).toBe("application/json");
    expect(Object.keys(mids.json as object)).toContain("BTC");
    const book = (await post("/info", { type: "l2Book", coin: "ETH" })).json as {
      coin: string;
      levels: { px: string; sz: string; n: number }[][];
    };
    expect(book.coin).toBe("ETH");
    expect(book.levels[0]!.length).toBeGreaterThanOrEqual(5);
    expect(book.levels[1]!.length).toBeGreaterThanOrEqual(5);
    expect(Number(book.levels[0]![0]!.px)).toBeLessThan(Number(book.levels[1]![0]!.px));
    const hip3 = (await post("/info", { type: "allMids", dex: "yex" })).json as Record<string, string>;
    expect(Object.keys(hip3)).toEqual(expect.arrayContaining(["yex:BTCSWP"]));
  });

  it("never serves a stale book from its cache after the book changed", async () => {
    const user = privateKeyToAccount(generatePrivateKey()).address.toLowerCase() as `0x${string}`;
    world.venue.deposit(user, "5000");
    const bids = async () =>
      (
        (await post("/info", { type: "l2Book", coin: "LINK" })).json as { levels: { px: string }[][] }
      ).levels[0]!.map((l) => l.px);
    const before = await bids();
    // One tick above the best house bid: the new best bid, inside the spread.
    const px = (Number(before[0]) + 0.001).toFixed(3);
    expect(before).not.toContain(px);
    const r = world.venue.exchange(
      {
        type: "order",
        orders: [{ a: LINK, b: true, p: px, s: "2", r: false, t: { limit: { tif: "Gtc" } } }],
        grouping: "na",
      },
      user,
      1,
    );
    expect(r.status).toBe("ok");
    expect(await bids()).toContain(px);
    const mids1 = (await post("/info", { type: "allMids" })).json as Record<string, string>;
    await post("/sim/price", { coin: "LINK", px: "30" });
    const mids2 = (await post("/info", { type: "allMids" })).json as Record<string, string>;
    expect(mids2.LINK).not.toBe(mids1.LINK);
  });

  it("refuses malformed or unknown requests with 422 text", async () => {
    expect((await post("/info", "not json")).status).toBe(422);
    const noType = await post("/info", { coin: "BTC" });
    expect(noType.status).toBe(422);
    expect(noType.text).toMatch(/Failed to deserialize/);
    const unknown = await post("/info", { type: "noSuchThing" });
    expect(unknown.status).toBe(422);
  });

  it("answers l2Book of an unlisted coin with 200 null, as the exchange does", async () => {
    const res = await post("/info", { type: "l2Book", coin: "NOPE" });
    expect(res.status).toBe(200);
    expect(res.text).toBe("null");
    const info = new InfoClient({ transport: new HttpTransport({ apiUrl: world.url, isTestnet: true }) });
    expect(await info.l2Book({ coin: "NOPE" })).toBeNull();
  });

  it("serves the SDK's InfoClient unchanged", async () => {
    const info = new InfoClient({ transport: new HttpTransport({ apiUrl: world.url, isTestnet: true }) });
    const [meta, ctxs] = await info.metaAndAssetCtxs();
    expect(meta.universe[0]!.name).toBe("BTC");
    expect(ctxs[0]!.oraclePx).toMatch(/^\d/);
    const candles = await info.candleSnapshot({ coin: "BTC", interval: "1m", startTime: START - DAY });
    expect(Array.isArray(candles)).toBe(true);
  });

  it("GET / says what this is and where to go, instead of a 404 for the URL `hl up` prints", async () => {
    const r = await fetch(`${world.url}/`);
    expect(r.status).toBe(200);
    const body = (await r.json()) as { service: string; endpoints: Record<string, string> };
    expect(body.service).toMatch(/simulated Hyperliquid/);
    expect(body.endpoints).toMatchObject({
      "POST /info": expect.any(String),
      "GET /health": expect.any(String),
    });
    expect((await fetch(`${world.url}/health`)).status).toBe(200);
  });

  it("answers unknown paths with 404 JSON and OPTIONS with 204", async () => {
    const r = await fetch(`${world.url}/nope`);
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({ error: "Not found: GET /nope" });
    expect((await fetch(`${world.url}/info`, { method: "OPTIONS" })).status).toBe(204);
  });
});

describe("admin endpoints", () => {
  it("health and state", async () => {
    const health = await (await fetch(`${world.url}/sim/health`)).json();
    expect(health).toMatchObject({ status: "ok" });
    const state = (await (await fetch(`${world.url}/sim/state`)).json()) as {
      seed: number;
      markets: { coin: string }[];
      time: number;
    };
    expect(state.seed).toBe(4);
    expect(state.markets.map((m) => m.coin)).toContain("yex:BTCSWP");
    expect(state.time).toBeGreaterThanOrEqual(START);
  });

  it("deposit and withdraw move a user's balance", async () => {
    const user = privateKeyToAccount(generatePrivateKey()).address;
    expect((await post("/sim/deposit", { user, amount: "500" })).status).toBe(200);
    const value = async () =>
      (
        (await post("/info", { type: "clearinghouseState", user })).json as {
          marginSummary: { accountValue: string };
        }
      ).marginSummary.accountValue;
    expect(await value()).toBe("10500");
    expect((await post("/sim/withdraw", { user, amount: "100.5" })).status).toBe(200);
    expect(await value()).toBe("10399.5");
    const bad = await post("/sim/deposit", { user: "0x123", amount: "1" });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ error: expect.stringMatching(/^user: /) });
    expect((await post("/sim/withdraw", { user, amount: "1000000" })).status).toBe(400);
  });

  it("price moves the oracle and the house requotes around it", async () => {
    const r = await post("/sim/price", { coin: "SOL", px: "250" });
    expect(r.status).toBe(200);
    const mids = (await post("/info", { type: "allMids" })).json as Record<string, string>;
    expect(Math.abs(Number(mids.SOL) / 250 - 1)).toBeLessThan(0.002);
    expect((await post("/sim/price", { coin: "NOPE", px: "1" })).status).toBe(400);
  });

  it("scenario makes a mover", async () => {
    const before = Number(((await post("/info", { type: "allMids" })).json as Record<string, string>).LINK);
    expect(
      (await post("/sim/scenario", { coin: "LINK", driftPerHour: 0.05, durationMs: 4 * 3_600_000 })).status,
    ).toBe(200);
    expect((await post("/sim/advance", { ms: 4 * 3_600_000 })).status).toBe(200);
    const after = Number(((await post("/info", { type: "allMids" })).json as Record<string, string>).LINK);
    expect(after / before).toBeGreaterThan(1.1);
  });
});

describe("rates and builder fill files", () => {
  it("serves /yields/pools", async () => {
    const r = (await (await fetch(`${world.url}/yields/pools`)).json()) as {
      status: string;
      data: { project: string }[];
    };
    expect(r.status).toBe("success");
    expect(r.data.map((p) => p.project)).toEqual(["aave-v3", "compound-v3", "ethena-usde", "lido"]);
  });

  it("publishes a builder's fills once the UTC day has closed, 403 before and for other builders", async () => {
    const builder = "0x00000000000000000000000000000000000b1d02" as const;
    const wallet = privateKeyToAccount(generatePrivateKey());
    const transport = new HttpTransport({ apiUrl: world.url, isTestnet: true });
    const info = new InfoClient({ transport });
    await info.clearinghouseState({ user: wallet.address });
    const exchange = new ExchangeClient({
      transport,
      wallet,
      nonceManager: (() => {
        let n = world.clock.now();
        return () => ++n;
      })(),
    });
    await exchange.approveBuilderFee({ maxFeeRate: "0.05%", builder });
    const ask = Number((await info.l2Book({ coin: "ETH" }))!.levels[1][0]!.px);
    await exchange.order({
      orders: [
        { a: 1, b: true, p: (ask * 1.01).toFixed(1), s: "0.01", r: false, t: { limit: { tif: "Ioc" } } },
      ],
      grouping: "na",
      builder: { b: builder, f: 20 },
    });
    const day = new Date(world.clock.now()).toISOString().slice(0, 10).replaceAll("-", "");
    const path = `/stats/Mainnet/builder_fills/${builder}/${day}.csv.lz4`;
    expect((await fetch(`${world.url}${path}`)).status).toBe(403);
    const now = world.clock.now();
    await post("/sim/advance", { ms: Math.ceil(now / DAY) * DAY - now + 1000 });
    const res = await fetch(`${world.url}${path}`);
    expect(res.status).toBe(200);
    const rows = decodeBuilderFillsFile(new Uint8Array(await res.arrayBuffer()));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      user: wallet.address.toLowerCase(),
      coin: "ETH",
      side: "Bid",
      sz: "0.01",
      crossed: true,
    });
    expect(Number(rows[0]!.builder_fee)).toBeGreaterThan(0);
    const other = `/stats/Mainnet/builder_fills/0x00000000000000000000000000000000000b1d03/${day}.csv.lz4`;
    expect((await fetch(`${world.url}${other}`)).status).toBe(403);
    expect(
      (
        await fetch(
          `${world.url}${path.replace("0x00000000000000000000000000000000000b1d02", "0x00000000000000000000000000000000000B1D02")}`,
        )
      ).status,
    ).toBe(403);
  });
});
