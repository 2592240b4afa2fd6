import { describe, expect, it } from "vitest";
import { FillFeed, type UserFillsSource } from "../../src/engine/fill-feed.ts";
import type { Fill } from "../../src/exchange/info.ts";
import type { UserFillsWsEvent } from "../../src/exchange/ws.ts";

/** A stream whose subscription confirms at once and whose pushes the test sends. */
function stream(): { source: UserFillsSource; push: (fills: Partial<Fill>[]) => void } {
  let listener: ((e: UserFillsWsEvent) => void) | undefined;
  const source: UserFillsSource = {
    async userFills(_user, l) {
      listener = l;
      l({ isSnapshot: true, user: "0x0", fills: [] } as unknown as UserFillsWsEvent);
      return { unsubscribe: async () => undefined, failureSignal: new AbortController().signal };
    },
    onDisconnect: () => () => undefined,
  };
  return {
    source,
    push: (fills) => listener?.({ user: "0x0", fills } as unknown as UserFillsWsEvent),
  };
}

describe("FillFeed: pushes", () => {
  it("tells its listeners of each pushed batch, and a read a push prompted does not bring the periodic REST read closer", async () => {
    const s = stream();
    const feed = new FillFeed({
      source: s.source,
      user: "0x0000000000000000000000000000000000000001",
      restEvery: 3,
    });
    const heard: number[] = [];
    const detach = feed.onPush((fills) => heard.push(fills.length));
    expect(await feed.read()).toEqual({ rest: true }); // the first read: REST, then the stream is trusted
    feed.restDone(feed.liveEpoch());
    s.push([{ coin: "ETH", tid: 1 }]);
    expect(heard).toEqual([1]);
    for (let i = 0; i < 5; i++) expect((await feed.read({ prompted: true })).rest).toBe(false);
    // Two counted reads from the stream, the third goes to REST, however many prompted reads came between.
    expect(await feed.read()).toEqual({ rest: false, fills: [] });
    expect((await feed.read()).rest).toBe(false);
    expect((await feed.read()).rest).toBe(true);
    detach();
    s.push([{ coin: "ETH", tid: 2 }]);
    expect(heard).toEqual([1]);
  });
});
