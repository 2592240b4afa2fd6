import { afterEach, describe, expect, it } from "vitest";
import type { AlertEvent, Alerter } from "../../src/alerts/webhook.ts";
import { PriceFeed, type PriceStreamStatus } from "../../src/wolf/price-feed.ts";

/** A stream that can be made to fail, go silent, or refuse subscriptions; mids are polled from `prices`. */
class FakeStream {
  prices: Record<string, string> = { ETH: "2500" };
  subscribeCalls: number[] = [];
  refuse = 0;
  polls = 0;
  private listener: ((m: Record<string, string>) => void) | undefined;
  private failure: ((reason: string) => void) | undefined;

  async mids() {
    this.polls++;
    return { ...this.prices };
  }

  async subscribeMids(l: (m: Record<string, string>) => void, onFailure?: (r: string) => void) {
    this.subscribeCalls.push(Date.now());
    if (this.refuse > 0) {
      this.refuse--;
      throw new Error("xyz: WebSocket allMids subscription timed out");
    }
    this.listener = l;
    this.failure = onFailure;
    return async () => {
      this.listener = undefined;
    };
  }

  push(coin: string, px: string) {
    this.prices[coin] = px;
    this.listener?.({ [coin]: px });
  }

  /** The price moves on the exchange, but the stream says nothing. */
  moveSilently(coin: string, px: string) {
    this.prices[coin] = px;
  }

  fail(reason: string) {
    this.failure?.(reason);
  }
}

const feeds: PriceFeed[] = [];
afterEach(async () => {
  for (const f of feeds.splice(0)) await f.stop();
});

function setup(stream: FakeStream, guarded = ["ETH"]) {
  const seen: Record<string, string>[] = [];
  const statuses: PriceStreamStatus[] = [];
  const alerts: AlertEvent[] = [];
  const alerter: Alerter = { send: (e) => void alerts.push(e), flush: async () => undefined };
  const feed = new PriceFeed({
    port: stream,
    onMids: (m) => seen.push(m),
    guardedCoins: () => guarded,
    onStatus: (s) => statuses.push(s),
    log: () => undefined,
    alerter,
    pollMs: 100,
    silenceMs: 300,
    retryMinMs: 100,
    retryMaxMs: 400,
  });
  feeds.push(feed);
  return { feed, seen, statuses, alerts };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Wait until `cond` holds (a loaded machine may run the beats late), failing after `ms`. */
async function within(ms: number, cond: () => boolean): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await sleep(20);
  }
}

describe("price feed", () => {
  it("a failed stream: degraded at once, polled, alerted once, resubscribed, ok again on the next streamed price", async () => {
    const stream = new FakeStream();
    const { feed, seen, statuses, alerts } = setup(stream);
    await feed.start();
    expect(feed.status).toBe("ok");
    stream.fail("WebSocket connection lost");
    expect(feed.status).toBe("degraded");
    stream.moveSilently("ETH", "2400");
    await sleep(350);
    expect(seen.some((m) => m.ETH === "2400")).toBe(true); // polled
    expect(stream.subscribeCalls.length).toBeGreaterThanOrEqual(2); // resubscribed
    expect(alerts).toEqual(["price_stream"]);
    stream.push("ETH", "2390");
    expect(feed.status).toBe("ok");
    expect(statuses).toEqual(["degraded", "ok"]);
  });

  it("a failed stream with no open position polls nothing (ticks read prices): weight stays for scans", async () => {
    const stream = new FakeStream();
    const guarded: string[] = [];
    const { feed, seen } = setup(stream, guarded);
    await feed.start();
    stream.fail("WebSocket connection lost");
    expect(feed.status).toBe("degraded");
    await sleep(500);
    expect(stream.polls).toBe(0);
    // A slot opens while the stream is still down: its coin is polled every beat from then on.
    stream.refuse = 100;
    guarded.push("ETH");
    stream.moveSilently("ETH", "2400");
    await within(2_000, () => seen.some((m) => m.ETH === "2400"));
    const before = stream.polls;
    await sleep(350);
    expect(stream.polls).toBeGreaterThan(before);
  });

  it("silence while a guarded price moves is a dead stream; silence in a quiet market is not", async () => {
    const stream = new FakeStream();
    const { feed, statuses } = setup(stream);
    await feed.start();
    await sleep(600); // silent, nothing moved
    expect(feed.status).toBe("ok");
    const polls = stream.polls;
    expect(polls).toBeLessThanOrEqual(2); // one check per silence period, not one per beat
    stream.moveSilently("ETH", "2450");
    await sleep(700);
    expect(feed.status).toBe("degraded");
    expect(statuses).toEqual(["degraded"]);
  });

  it("a subscription refused (some dex timed out) retries with a growing back-off while polling", async () => {
    const stream = new FakeStream();
    stream.refuse = 3;
    const { feed, seen } = setup(stream);
    await feed.start();
    expect(feed.status).toBe("degraded");
    await sleep(1000);
    const calls = stream.subscribeCalls;
    expect(calls.length).toBe(4); // 3 refused, the 4th works
    const gaps = calls.slice(1).map((t, i) => t - calls[i]!);
    expect(gaps[1]!).toBeGreaterThan(gaps[0]! * 1.5);
    expect(stream.polls).toBeGreaterThan(3);
    expect(seen.length).toBeGreaterThan(3);
    stream.push("ETH", "2501");
    expect(feed.status).toBe("ok");
  });

  it("a silent HIP-3 coin is noticed while the main dex keeps streaming: polled every beat, alerted, degraded per coin", async () => {
    const stream = new FakeStream();
    stream.prices["yex:VXX"] = "40";
    const { feed, seen, alerts } = setup(stream, ["ETH", "yex:VXX"]);
    await feed.start();
    // The main dex streams on; yex says nothing while VXX falls 45 %.
    let eth = 2500;
    const beat = setInterval(() => {
      eth += 1;
      stream.push("ETH", String(eth));
    }, 50);
    try {
      stream.moveSilently("yex:VXX", "30");
      await within(3000, () => seen.some((m) => m["yex:VXX"] === "30") && feed.status === "degraded");
      expect(feed.degradedCoins()).toEqual(["yex:VXX"]);
      expect(feed.status).toBe("degraded");
      expect(alerts).toEqual(["price_stream"]);
      // polled every beat (≤ 2 s; 100 ms here) while degraded
      const polls = stream.polls;
      stream.moveSilently("yex:VXX", "22");
      await within(3000, () => stream.polls - polls >= 2 && seen.some((m) => m["yex:VXX"] === "22"));
      // streamed again: that coin recovers
      stream.push("yex:VXX", "21");
      expect(feed.degradedCoins()).toEqual([]);
      expect(feed.status).toBe("ok");
    } finally {
      clearInterval(beat);
    }
  });
});
