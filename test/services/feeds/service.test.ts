import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUR_MS } from "../../../src/services/feeds/oracle.ts";
import { FEED_NAMES, type FeedName } from "../../../src/services/feeds/profiles.ts";
import { type RunningFeeds, startFeeds } from "../../../src/services/feeds/server.ts";
import type { FundingSource } from "../../../src/services/feeds/source.ts";
import { parseSseBlock, splitSseBlocks, subscribeSse } from "../../../src/services/feeds/sse-client.ts";
import { feedTickSchema, historyPageSchema } from "../../../src/services/feeds/tick.ts";
import { usePostgres } from "../../support/postgres.ts";
import { startFeedReplicas } from "./replicas.ts";

const T0 = Date.UTC(2026, 5, 1);

class FakeSource implements FundingSource {
  clock = T0 + 60_000;
  live = new Map<string, string>([["BTC", "0.0000200"]]);
  async now() {
    return this.clock;
  }
  settled: { time: number; rate: string }[] = [];
  async history(_coin: string, startMs: number) {
    return this.settled.filter((r) => r.time >= startMs && r.time <= this.clock);
  }
  async predicted(coin: string) {
    return this.live.get(coin) ?? "0.0000125";
  }
}

/** Collect SSE events from a URL until `count` arrived (or the timeout). */
function collect(url: string, count: number, timeoutMs = 5_000): Promise<{ event: string; data: string }[]> {
  return new Promise((resolve, reject) => {
    const got: { event: string; data: string }[] = [];
    const timer = setTimeout(() => {
      sub.close();
      reject(new Error(`timeout: ${got.length}/${count} events from ${url}`));
    }, timeoutMs);
    const sub = subscribeSse(url, {
      onEvent(event, data) {
        got.push({ event, data });
        if (got.length >= count) {
          clearTimeout(timer);
          sub.close();
          resolve(got);
        }
      },
    });
  });
}

let feeds: RunningFeeds;
let src = new FakeSource();
const postgres = usePostgres();

const options = () => ({
  source: src,
  feeds: [...FEED_NAMES],
  basePort: 0,
  proxy: true,
  pollMs: 3_600_000, // the tests drive polls themselves
  inceptionMs: T0,
  historyRetryMs: 0,
});

/** The same acceptance tests, against one process on SQLite and against two replicas on Postgres. */
const deployments: [string, () => Promise<RunningFeeds>][] = [
  ["one process on SQLite", () => startFeeds({ ...options(), dbPath: ":memory:" })],
  [
    "two replicas on Postgres behind a round-robin balancer",
    async () => startFeedReplicas(await postgres.current.freshDatabase(), options()),
  ],
];

const btc = () => feeds.origins.btcswp!;
type Json = Record<string, unknown>;
async function json(url: string): Promise<Json> {
  return (await (await fetch(url)).json()) as Json;
}
async function advance(ms: number) {
  src.clock += ms;
  for (const e of feeds.engines) await e.poll();
}

describe.each(deployments)("%s", (_name, deploy) => {
  beforeAll(async () => {
    src = new FakeSource();
    feeds = await deploy();
  });
  afterAll(async () => {
    await feeds.close();
  });

  describe("feed origins", () => {
    it("GET /healthz answers {status: ok}", async () => {
      for (const name of FEED_NAMES) {
        const res = await fetch(`${feeds.origins[name]}/healthz`);
        expect(res.status).toBe(200);
        expect(((await res.json()) as Json).status).toBe("ok");
      }
    });

    it("GET /api/latest and /latest return the tick with oracle_px", async () => {
      const a = feedTickSchema.parse(await (await fetch(`${btc()}/api/latest`)).json());
      const b = feedTickSchema.parse(await (await fetch(`${btc()}/latest`)).json());
      expect(a).toEqual(b);
      expect(a.feed).toBe("BTCSWP");
      expect(a.oracle_px).toMatch(/^\d+\.\d{6}$/);
      // One minute into hour 1 at 2e-5 against K0 2.9e-6: 15e6 · (1/60) · 1.71e-5 = 4.275
      expect(a.oracle_px).toBe("75004.275000");
    });

    it("each feed publishes its own price", async () => {
      const pxs = await Promise.all(
        FEED_NAMES.map(async (n) => (await json(`${feeds.origins[n]}/api/latest`)).feed),
      );
      expect(pxs).toEqual(["BTCSWP", "HYPESWP", "ETHCSWP", "SPCXSWP"]);
    });

    it("GET /api/stream sends the current tick at once as `event: price`, then each new tick", async () => {
      for (const path of ["/api/stream", "/stream"]) {
        const events = collect(`${btc()}${path}`, 2);
        await new Promise((r) => setTimeout(r, 100));
        await advance(60_000);
        const got = await events;
        expect(got.map((e) => e.event)).toEqual(["price", "price"]);
        const [first, second] = got.map((e) => feedTickSchema.parse(JSON.parse(e.data)));
        expect(second!.timestamp).toBeGreaterThan(first!.timestamp);
      }
    });

    it("the stream has SSE headers", async () => {
      const ctl = new AbortController();
      const res = await fetch(`${btc()}/api/stream`, {
        signal: ctl.signal,
        headers: { accept: "text/event-stream" },
      });
      expect(res.headers.get("content-type")).toBe("text/event-stream");
      expect(res.headers.get("cache-control")).toBe("no-cache");
      ctl.abort();
    });

    it("GET /api/history pages through stored ticks", async () => {
      for (let i = 0; i < 3; i++) await advance(10_000);
      const all = historyPageSchema.parse(await (await fetch(`${btc()}/api/history?from=0`)).json());
      expect(all.ticks.length).toBeGreaterThanOrEqual(5);
      expect(all.next_from).toBeNull();
      const page = historyPageSchema.parse(await (await fetch(`${btc()}/api/history?from=0&limit=2`)).json());
      expect(page.ticks).toEqual(all.ticks.slice(0, 2));
      const next = historyPageSchema.parse(
        await (await fetch(`${btc()}/api/history?from=${page.next_from}&limit=2`)).json(),
      );
      expect(next.ticks).toEqual(all.ticks.slice(2, 4));
      const window = historyPageSchema.parse(
        await (
          await fetch(`${btc()}/api/history?from=${all.ticks[1]!.timestamp}&to=${all.ticks[2]!.timestamp}`)
        ).json(),
      );
      expect(window.ticks).toEqual(all.ticks.slice(1, 3));
    });

    it("bad history parameters are a 400 JSON error", async () => {
      for (const q of ["from=abc", "limit=0", "limit=5001", "to=-1"]) {
        const res = await fetch(`${btc()}/api/history?${q}`);
        expect(res.status).toBe(400);
        expect(typeof ((await res.json()) as Json).error).toBe("string");
      }
    });

    it("true-up at the hour: history after the settlement carries the new settled hour", async () => {
      src.clock = T0 + HOUR_MS + 5_000;
      src.settled.push({ time: T0 + HOUR_MS + 3, rate: "0.0000200" });
      await advance(0);
      const tick = feedTickSchema.parse(await (await fetch(`${btc()}/api/latest`)).json());
      expect(tick.settled_through).toBe(T0 + HOUR_MS);
    });
  });

  describe("feeds proxy", () => {
    const proxy = () => feeds.proxyUrl!;

    it("GET /healthz answers {status: ok} like an origin, with each feed's origin health", async () => {
      const res = await fetch(`${proxy()}/healthz`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { status: string; feeds: Record<string, Json> };
      expect(body.status).toBe("ok");
      expect(Object.keys(body.feeds).sort()).toEqual([...FEED_NAMES].sort());
      expect(body.feeds.btcswp).toMatchObject({ status: "ok", feed: "BTCSWP" });
    });

    it("GET /healthz is a 503 naming the feed whose origin does not answer", async () => {
      const { createFeedsProxy } = await import("../../../src/services/feeds/proxy.ts");
      const upstreams = { ...feeds.origins, hypeswp: "http://127.0.0.1:9" } as Record<FeedName, string>;
      const lonely = createFeedsProxy({ upstreams, timeoutMs: 1000 });
      try {
        const res = await lonely.app.inject({ method: "GET", url: "/healthz" });
        expect(res.statusCode).toBe(503);
        const body = res.json() as { status: string; feeds: Record<string, Json> };
        expect(body.status).toBe("degraded");
        expect(body.feeds.hypeswp!.status).toBe("unreachable");
        expect(body.feeds.btcswp!.status).toBe("ok");
      } finally {
        await lonely.app.close();
      }
    });

    it("relays latest for each feed", async () => {
      for (const name of FEED_NAMES) {
        const via = await (await fetch(`${proxy()}/api/feeds/${name}/latest`)).json();
        const direct = await (await fetch(`${feeds.origins[name]}/api/latest`)).json();
        expect(via).toEqual(direct);
      }
    });

    it("relays history with its query", async () => {
      const via = await (await fetch(`${proxy()}/api/feeds/btcswp/history?from=0&limit=2`)).json();
      const direct = await (await fetch(`${btc()}/api/history?from=0&limit=2`)).json();
      expect(via).toEqual(direct);
    });

    it("unknown feed is a 404 JSON error", async () => {
      for (const path of [
        "/api/feeds/dogeswp/latest",
        "/api/feeds/dogeswp/stream",
        "/api/feeds/dogeswp/history",
      ]) {
        const res = await fetch(`${proxy()}${path}`);
        expect(res.status).toBe(404);
        expect(((await res.json()) as Json).error).toMatch(/Unknown feed/);
      }
    });

    it("streams through one upstream subscription however many clients", async () => {
      const clients = Array.from({ length: 5 }, () => collect(`${proxy()}/api/feeds/btcswp/stream`, 2));
      await new Promise((r) => setTimeout(r, 300));
      await advance(60_000);
      const all = await Promise.all(clients);
      for (const got of all) expect(got.every((e) => e.event === "price")).toBe(true);
      const health = await json(`${btc()}/healthz`);
      expect(health.subscribers).toBe(1);
    });

    it("serves the feeds page and the chart script", async () => {
      const page = await fetch(`${proxy()}/`);
      expect(page.headers.get("content-type")).toMatch(/text\/html/);
      expect(await page.text()).toContain("/vendor/lightweight-charts.js");
      const js = await fetch(`${proxy()}/vendor/lightweight-charts.js`);
      expect(js.status).toBe(200);
      expect((await js.text()).length).toBeGreaterThan(10_000);
      expect((await fetch(`${proxy()}/feeds.js`)).status).toBe(200);
    });
  });
});

describe("SSE keep-alive", () => {
  it("sends a comment heartbeat on the configured period", async () => {
    const quick = await startFeeds({
      source: new FakeSource(),
      dbPath: ":memory:",
      feeds: ["btcswp"],
      basePort: 0,
      proxy: false,
      pollMs: 3_600_000,
      inceptionMs: T0,
      heartbeatMs: 50,
    });
    try {
      const ctl = new AbortController();
      const res = await fetch(`${quick.origins.btcswp}/api/stream`, { signal: ctl.signal });
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      while (!text.includes(": keep-alive\n\n")) text += (await reader.read()).value ?? "";
      ctl.abort();
      expect(text.startsWith("event: price\n")).toBe(true);
    } finally {
      await quick.close();
    }
  });
});

describe("SSE parsing", () => {
  it("splits blocks, ignores comments, joins multi-line data", () => {
    const { blocks, rest } = splitSseBlocks(': keep-alive\n\nevent: price\ndata: {"a":1}\n\nevent: pr');
    expect(rest).toBe("event: pr");
    expect(blocks.map(parseSseBlock)).toEqual([null, { event: "price", data: '{"a":1}' }]);
    expect(parseSseBlock("data: a\ndata: b")).toEqual({ event: "message", data: "a\nb" });
  });
});
