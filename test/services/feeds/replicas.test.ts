import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FEED_NAMES } from "../../../src/services/feeds/profiles.ts";
import type { FundingSource } from "../../../src/services/feeds/source.ts";
import { subscribeSse } from "../../../src/services/feeds/sse-client.ts";
import { type FeedTick, feedTickSchema, historyPageSchema } from "../../../src/services/feeds/tick.ts";
import { usePostgres } from "../../support/postgres.ts";
import { type RoundRobin, startRoundRobin } from "../../support/round-robin.ts";
import { type FeedReplicas, startFeedReplicas } from "./replicas.ts";

const T0 = Date.UTC(2026, 5, 1);

class FakeSource implements FundingSource {
  clock = T0 + 60_000;
  rate = 20;
  async now() {
    return this.clock;
  }
  async history() {
    return [];
  }
  async predicted() {
    return `0.0000${this.rate}`;
  }
}

const postgres = usePostgres();
const src = new FakeSource();
let feeds: FeedReplicas;
let lb: RoundRobin;

beforeAll(async () => {
  feeds = await startFeedReplicas(await postgres.current.freshDatabase(), {
    source: src,
    feeds: [...FEED_NAMES],
    basePort: 0,
    proxy: true,
    pollMs: 3_600_000, // the test publishes by polling the writer's engines
    inceptionMs: T0,
    historyRetryMs: 0,
  });
  // Its own balancer, so the first stream lands on replica 0 (the writer) and the second on replica 1.
  lb = await startRoundRobin(feeds.replicas.map((r) => r.origins.btcswp!));
});
afterAll(async () => {
  await lb.close();
  await feeds.close();
});

/** Publish one new BTCSWP tick from whichever replica writes now. */
async function publish(): Promise<FeedTick> {
  src.clock += 10_000;
  src.rate++;
  const btc = feeds.engines.find((e) => e.symbol === "BTCSWP");
  if (!btc) throw new Error("no replica writes BTCSWP");
  const tick = await btc.poll();
  if (!tick) throw new Error("the price did not move");
  return tick;
}

function stream(url: string, retryMs = 50) {
  const got: FeedTick[] = [];
  const sub = subscribeSse(
    url,
    {
      onEvent(event, data) {
        if (event === "price") got.push(feedTickSchema.parse(JSON.parse(data)));
      },
    },
    { retryMs, maxRetryMs: retryMs },
  );
  return { got, sub };
}

async function until(what: string, ok: () => boolean, timeoutMs = 5_000): Promise<number> {
  const start = Date.now();
  while (!ok()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - start;
}

describe("feeds on two Postgres replicas", () => {
  it("one replica writes; the writer's death hands every feed to the other within 5 s, and no SSE client misses or repeats a tick", async () => {
    expect(feeds.replicas[0]!.engines.map((e) => e.symbol).sort()).toEqual([
      "BTCSWP",
      "ETHCSWP",
      "HYPESWP",
      "SPCXSWP",
    ]);
    expect(feeds.replicas[1]!.engines).toEqual([]);

    // This client comes back only after the new writer has published: it must resume from its Last-Event-ID.
    const onWriter = stream(`${lb.url}/api/stream`, 2_000);
    const onReader = stream(`${lb.url}/api/stream`);
    await until("both streams' first tick", () => onWriter.got.length === 1 && onReader.got.length === 1);
    expect(lb.served).toEqual([1, 1]);

    const before = [await publish(), await publish(), await publish()];
    await until(
      "the ticks on both replicas' streams",
      () => onWriter.got.length === 4 && onReader.got.length === 4,
    );

    await feeds.kill(0);
    const handover = await until(
      "replica 1 to write every feed",
      () => feeds.engines.length === FEED_NAMES.length,
    );
    expect(handover).toBeLessThan(5_000);
    expect(feeds.replicas[1]!.engines).toHaveLength(FEED_NAMES.length);

    // Readers keep answering through the balancer.
    for (let i = 0; i < 3; i++) expect((await fetch(`${lb.url}/api/latest`)).status).toBe(200);

    const after = [await publish(), await publish(), await publish()];
    const last = after[after.length - 1]!;
    const done = (s: { got: FeedTick[] }) => s.got[s.got.length - 1]?.timestamp === last.timestamp;
    await until("both streams to reach the last tick", () => done(onWriter) && done(onReader));
    onWriter.sub.close();
    onReader.sub.close();

    // Every stored tick, once, in order: the stream that lost its replica resumed after its last id.
    const history = historyPageSchema.parse(await (await fetch(`${lb.url}/api/history?from=0`)).json()).ticks;
    const first = onWriter.got[0]!.timestamp;
    const expected = history.filter((t) => t.timestamp >= first);
    expect(onWriter.got).toEqual(expected);
    expect(onReader.got).toEqual(expected);
    for (const t of [...before, ...after]) expect(history).toContainEqual(t);
    const stamps = history.map((t) => t.timestamp);
    expect(new Set(stamps).size).toBe(stamps.length);
    expect([...stamps].sort((a, b) => a - b)).toEqual(stamps);
  }, 20_000);

  it("a client reconnecting to the proxy with Last-Event-ID gets every tick after that id, each once", async () => {
    const history = historyPageSchema.parse(await (await fetch(`${lb.url}/api/history?from=0`)).json()).ticks;
    expect(history.length).toBeGreaterThanOrEqual(4);
    const from = history[history.length - 4]!;
    const ctl = new AbortController();
    const res = await fetch(`${feeds.proxyUrl}/api/feeds/btcswp/stream`, {
      headers: { "last-event-id": String(from.timestamp) },
      signal: ctl.signal,
    });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    const frames = () => text.split("\n\n").filter((b) => b.includes("data: "));
    while (frames().length < 3) text += (await reader.read()).value ?? "";
    const live = publish(); // and the live stream goes on after the replay
    while (frames().length < 4) text += (await reader.read()).value ?? "";
    ctl.abort();
    const got = frames().map((b) => ({
      id: Number(/^id: (\d+)$/m.exec(b)?.[1]),
      tick: feedTickSchema.parse(JSON.parse(/^data: (.*)$/m.exec(b)![1]!)),
    }));
    expect(got.map((g) => g.tick)).toEqual([...history.slice(-3), await live]);
    expect(got.map((g) => g.id)).toEqual(got.map((g) => g.tick.timestamp));
  });
});
