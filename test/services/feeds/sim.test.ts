import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HlClient } from "../../../src/exchange/index.ts";
import { HOUR_MS, priceString, publish, rawPrice, replay } from "../../../src/services/feeds/oracle.ts";
import { FEED_NAMES, FEEDS } from "../../../src/services/feeds/profiles.ts";
import { type RunningFeeds, startFeeds } from "../../../src/services/feeds/server.ts";
import { exchangeFundingSource } from "../../../src/services/feeds/source.ts";
import { feedTickSchema, historyPageSchema } from "../../../src/services/feeds/tick.ts";
import { type SimWorld, startSimWorld } from "../../../src/sim/world.ts";

/** The feeds against the sim world: real funding history, live asset contexts, the sim clock. */
const START = Date.UTC(2026, 10, 20, 10, 15);
let world: SimWorld;
let client: HlClient;
let feeds: RunningFeeds;

beforeAll(async () => {
  world = await startSimWorld({ port: 0, seed: 11, startMs: START });
  client = await HlClient.create({ network: "paper", apiUrl: world.url, paperWallet: false });
  feeds = await startFeeds({
    source: exchangeFundingSource(client, 0, 0),
    dbPath: ":memory:",
    feeds: [...FEED_NAMES],
    basePort: 0,
    proxy: true,
    pollMs: 3_600_000,
    historyRetryMs: 0,
    inceptionMs: Date.UTC(2026, 10, 20, 10),
  });
});
afterAll(async () => {
  await feeds?.close();
  await client?.close();
  await world?.close();
});

describe("feeds on the sim world", () => {
  it("every origin is healthy and publishes a 6-decimal price", async () => {
    for (const name of FEED_NAMES) {
      const health = (await (await fetch(`${feeds.origins[name]}/healthz`)).json()) as { status: string };
      expect(health.status).toBe("ok");
      const tick = feedTickSchema.parse(await (await fetch(`${feeds.origins[name]}/api/latest`)).json());
      expect(tick.feed).toBe(FEEDS[name].symbol);
      expect(tick.timestamp).toBeGreaterThanOrEqual(START);
    }
  });

  it("after the sim clock crosses hours, the index is the methodology applied to the exchange's funding history", async () => {
    world.advance(3 * HOUR_MS);
    const btc = feeds.engines.find((e) => e.def.name === "btcswp")!;
    const tick = await btc.poll();
    expect(tick).not.toBeNull();
    const history = await client.fundingHistory({ coin: "BTC", startTime: Date.UTC(2026, 10, 20, 10) + 1 });
    const hours = history
      .map((r) => ({ hourEndMs: Math.round(r.time / HOUR_MS) * HOUR_MS, rate: r.fundingRate }))
      .filter((h) => h.hourEndMs <= tick!.timestamp);
    expect(hours.length).toBe(3);
    const state = replay(FEEDS.btcswp.profile, Date.UTC(2026, 10, 20, 10), hours);
    expect(tick!.settled_through).toBe(state.settledThroughMs);
    expect(tick!.fixed_leg).toBe(state.k.toFixed());
    // Replay published each settled hour: those ticks are in the history, clamped in sequence.
    const page = historyPageSchema.parse(
      await (await fetch(`${feeds.origins.btcswp}/api/history?from=0`)).json(),
    );
    const hourly = page.ticks.filter((t) => t.timestamp % HOUR_MS === 0).map((t) => t.oracle_px);
    let pub = FEEDS.btcswp.profile.baseline;
    const first = page.ticks[0]!;
    pub = publish(pub, first.raw_px);
    expect(first.oracle_px).toBe(priceString(pub));
    expect(hourly.length).toBe(3);
    const settledRaw = rawPrice(FEEDS.btcswp.profile, state);
    expect(page.ticks.find((t) => t.timestamp === state.settledThroughMs)?.raw_px).toBe(
      priceString(settledRaw),
    );
  });

  it("the proxy streams the BTCSWP ticks as `event: price`", async () => {
    const ctl = new AbortController();
    const res = await fetch(`${feeds.proxyUrl}/api/feeds/btcswp/stream`, { signal: ctl.signal });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("\n\n")) text += (await reader.read()).value ?? "";
    ctl.abort();
    expect(text.startsWith("event: price\ndata: ")).toBe(true);
    const tick = feedTickSchema.parse(JSON.parse(text.split("\n")[1]!.slice(6)));
    expect(tick.feed).toBe("BTCSWP");
  });
});
