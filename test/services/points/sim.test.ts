import { generatePrivateKey } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HlClient } from "../../../src/exchange/index.ts";
import { type RunningFeeds, startFeeds } from "../../../src/services/feeds/server.ts";
import { exchangeFundingSource } from "../../../src/services/feeds/source.ts";
import { DEFAULT_BUILDERS, type PointsConfig } from "../../../src/services/points/config.ts";
import { BTCSWP_RULES } from "../../../src/services/points/scoring.ts";
import { type RunningPoints, startPoints } from "../../../src/services/points/server.ts";
import type { WalletPoints } from "../../../src/services/points/service.ts";
import { exchangeFillSource } from "../../../src/services/points/source.ts";
import { type SimWorld, startSimWorld } from "../../../src/sim/world.ts";
import { approveBuilderFee, builderConfig, builderFeeForClient } from "../../../src/wallet/builder.ts";

/**
 * End to end on the sim world: wallets trade yex:BTCSWP with and without an eligible builder code,
 * in and out of the ±25 bps band around the BTCSWP oracle; the points API must return exactly the
 * hand-computed totals — provisional before the day's builder file exists, confirmed after.
 */
const HOUR = 3_600_000;
const DAY = 86_400_000;
// Near the wall clock: the sim refuses signatures whose nonce (wall ms) is far from its own time.
const INCEPTION = Math.floor(Date.now() / HOUR) * HOUR;
const START = INCEPTION + 5 * 60_000;
const TRADE_DAY = new Date(START).toISOString().slice(0, 10);
const INSTRUMENT = "yex:BTCSWP";

let world: SimWorld;
let reader: HlClient;
let feeds: RunningFeeds;
let points: RunningPoints;

/** A wallet with the builder settings of a default run (no BUILDER_* set), or with none at all. */
async function wallet(builder: boolean): Promise<HlClient> {
  const defaultRun = builderFeeForClient({});
  const client = await HlClient.create({
    network: "paper",
    apiUrl: world.url,
    privateKey: generatePrivateKey(),
    ...(builder && defaultRun ? { builder: defaultRun } : {}),
  });
  await fetch(`${world.url}/sim/deposit`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user: client.address, amount: "100000" }),
  });
  // yex is margined from the main balance only under dex abstraction (a new account keeps it apart).
  await client.enableDexAbstraction();
  if (builder) await approveBuilderFee(client, builderConfig({}));
  return client;
}

/** Tick the feed now, and wait until the points service has stored that mark. */
async function markNow(): Promise<void> {
  const tick = (await feeds.engines[0]!.poll()) ?? feeds.engines[0]!.latest()!;
  for (let i = 0; i < 200 && ((await points.store.lastMarkTs()) ?? 0) < tick.timestamp; i++)
    await new Promise((r) => setTimeout(r, 20));
  expect(await points.store.lastMarkTs()).toBeGreaterThanOrEqual(tick.timestamp);
}

/** `maker` rests `side` at px, `taker` crosses it: one fill each at px. */
async function trade(maker: HlClient, taker: HlClient, makerSide: "buy" | "sell", px: string, size: string) {
  const rest = await maker.order({ instrument: INSTRUMENT, side: makerSide, size, price: px, tif: "Alo" });
  expect(rest.status).toBe("resting");
  const take = await taker.order({
    instrument: INSTRUMENT,
    side: makerSide === "buy" ? "sell" : "buy",
    size,
    price: px,
    tif: "Ioc",
  });
  expect(take.status).toBe("filled");
}

async function score(address: string): Promise<WalletPoints> {
  return (await (await fetch(`${points.url}/points/market-address/${address}`)).json()) as WalletPoints;
}

let makerB: HlClient; // builder code
let takerB: HlClient; // builder code
let plain: HlClient; // no builder code

beforeAll(async () => {
  world = await startSimWorld({
    port: 0,
    seed: 5,
    startMs: START,
    houseMakers: false,
    liveCoins: ["BTC", "ETH", "HYPE", "yex:BTCSWP"],
  });
  reader = await HlClient.create({ network: "paper", apiUrl: world.url, paperWallet: false });
  feeds = await startFeeds({
    source: exchangeFundingSource(reader),
    dbPath: ":memory:",
    feeds: ["btcswp"],
    basePort: 0,
    proxy: false,
    pollMs: 3_600_000, // polled by the test, right before each trade
    inceptionMs: INCEPTION,
  });
  const cfg: PointsConfig = {
    port: 0,
    host: "127.0.0.1",
    dbPath: ":memory:",
    coin: "yex:BTCSWP",
    market: "BTCSWP",
    rules: BTCSWP_RULES,
    builders: [...DEFAULT_BUILDERS],
    statsUrl: `${world.url}/stats`,
    statsNetwork: "Testnet",
    missingFileRetryMs: 0,
    programStartMs: START,
    markToleranceMs: 60_000,
    feedUrl: feeds.origins.btcswp!,
    cacheMs: 0,
    followMs: 0,
    provisionalDays: 1,
  };
  points = await startPoints(cfg, { fills: exchangeFillSource(reader), log: () => undefined });
  // Put the market where the oracle is (the sim's BTCSWP starts elsewhere).
  const oracle = feeds.engines[0]!.latest()!.oracle_px;
  await fetch(`${world.url}/sim/price`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ coin: "yex:BTCSWP", px: oracle }),
  });
  [makerB, takerB, plain] = await Promise.all([wallet(true), wallet(true), wallet(false)]);

  // The oracle is ≈75,012 here (15e6 · 9.6e-6/h excess for ~5 min); the band is ≈ ±187.
  await markNow();
  await trade(makerB, takerB, "sell", "75050", "0.02"); // in band, both with builder: $1,501 each
  await markNow();
  await trade(makerB, plain, "buy", "76000", "0.01"); // 130 bps out: maker out_of_band, taker no builder
  await markNow();
  await trade(plain, takerB, "buy", "75000", "0.03"); // in band: plain maker no builder; takerB taker $2,250
  await markNow();
}, 60_000);

afterAll(async () => {
  await points?.close();
  await feeds?.close();
  for (const c of [makerB, takerB, plain, reader]) await c?.close();
  await world?.close();
});

describe("points e2e on the sim world", () => {
  it("before the day's builder file exists, builder fills count provisionally", async () => {
    const m = await score(makerB.address!);
    expect(m).toMatchObject({
      total_points: "4.503", // 1501/1000 · 1.5 · 2
      provisional_points: "4.503",
      eligible_volume_usd: "1501",
      fills_total: 2,
      fills_eligible: 1,
      excluded: { out_of_band: 1, no_builder: 0, capped: 0, no_mark: 0 },
      history: { complete: true, missing_before: null },
    });
    const t = await score(takerB.address!);
    // 1501 + 2250 = 3751 taker volume · 1.5 · 1.5 / 1000
    expect(t).toMatchObject({
      total_points: "8.43975",
      provisional_points: "8.43975",
      eligible_volume_usd: "3751",
    });
    const p = await score(plain.address!);
    expect(p).toMatchObject({
      total_points: "0",
      fills_total: 2,
      fills_eligible: 0,
      excluded: { out_of_band: 0, no_builder: 2, capped: 0, no_mark: 0 },
    });
  });

  it("once the UTC day closes, the builder file confirms the same totals", async () => {
    world.advance(Math.floor(START / DAY) * DAY + DAY + 30 * 60_000 - world.clock.now());
    const m = await score(makerB.address!);
    expect(m).toMatchObject({ total_points: "4.503", provisional_points: "0", fills_eligible: 1 });
    expect(m.by_day).toEqual([
      { date: TRADE_DAY, points: "4.503", eligible_volume_usd: "1501", capped_volume_usd: "0" },
    ]);
    const t = await score(takerB.address!);
    expect(t).toMatchObject({ total_points: "8.43975", provisional_points: "0" });
    const p = await score(plain.address!);
    expect(p.total_points).toBe("0");
    // Over the day the plain account's isolated BTCSWP long may be liquidated (this seed's path falls
    // ~2.7 %): that fill carries no builder code either. Every fill of the account is excluded so.
    const fills = world.venue.info({ type: "userFills", user: plain.address! }) as {
      liquidation?: unknown;
    }[];
    expect(fills.filter((f) => !f.liquidation)).toHaveLength(2);
    expect(p.excluded.no_builder).toBe(fills.length);
  });

  it("the batch endpoint returns the same per-wallet results", async () => {
    const res = await fetch(`${points.url}/points/market-addresses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ addresses: [makerB.address, takerB.address, plain.address] }),
    });
    const { wallets } = (await res.json()) as { wallets: WalletPoints[] };
    expect(wallets.map((w) => w.total_points)).toEqual(["4.503", "8.43975", "0"]);
  });
});
