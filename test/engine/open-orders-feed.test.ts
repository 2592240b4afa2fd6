import { describe, expect, it } from "vitest";
import { OpenOrdersFeed, type OpenOrdersSource } from "../../src/engine/open-orders-feed.ts";
import type { Address } from "../../src/exchange/config.ts";
import type { OpenOrdersWsEvent, Subscription } from "../../src/exchange/ws.ts";

const USER = "0x00000000000000000000000000000000000000c1" as Address;

/** A stream the test pushes by hand. */
function fakeSource() {
  let listener: ((e: OpenOrdersWsEvent) => void) | undefined;
  let drop: (() => void) | undefined;
  const source: OpenOrdersSource = {
    async openOrders(_user, l) {
      listener = l;
      return {
        unsubscribe: async () => undefined,
        failureSignal: new AbortController().signal,
      } as Subscription;
    },
    onDisconnect(l) {
      drop = l;
      return () => undefined;
    },
  };
  const push = (oids: number[]) =>
    listener!({
      dex: "",
      user: USER,
      orders: oids.map((oid) => ({ oid, coin: "ETH" })) as unknown as OpenOrdersWsEvent["orders"],
    });
  return { source, push, drop: () => drop!() };
}

describe("open orders from the openOrders stream", () => {
  it("reads REST until the stream pushed, after each action of ours until it pushes again, and every 12th read", async () => {
    const s = fakeSource();
    const feed = new OpenOrdersFeed({ source: s.source, user: USER, dex: "", pushWaitMs: 0 });
    expect(await feed.read()).toEqual({ rest: true }); // nothing pushed yet
    feed.restDone();
    s.push([1]);
    const streamed = await feed.read();
    expect(streamed.rest).toBe(false);
    expect(!streamed.rest && streamed.orders.map((o) => o.oid)).toEqual([1]);
    feed.acted(); // we placed or cancelled: the last push may not show it
    expect((await feed.read()).rest).toBe(true);
    feed.restDone();
    s.push([1, 2]);
    let rest = 0;
    for (let i = 0; i < 24; i++) {
      const r = await feed.read();
      if (r.rest) {
        rest++;
        feed.restDone();
      }
    }
    expect(rest).toBe(2); // the backstop: one REST read in 12
    s.drop(); // a dropped connection: nothing is trusted until the next push
    expect((await feed.read()).rest).toBe(true);
  });

  it("waits for the push it needs (the first, the one after our action) instead of reading REST, within pushWaitMs", async () => {
    const s = fakeSource();
    const feed = new OpenOrdersFeed({ source: s.source, user: USER, dex: "", pushWaitMs: 200 });
    setTimeout(() => s.push([1]), 20); // the subscription's first push
    const first = await feed.read();
    expect(!first.rest && first.orders.map((o) => o.oid)).toEqual([1]);
    feed.acted();
    setTimeout(() => s.push([1, 2]), 20); // the list after our order
    const after = await feed.read();
    expect(!after.rest && after.orders.map((o) => o.oid)).toEqual([1, 2]);
    feed.acted(); // no push comes: REST once the wait is over
    const t0 = Date.now();
    expect(await feed.read()).toEqual({ rest: true });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(150);
    // …and not again for the same action: a stream that does not push costs one wait, not one a read.
    const t1 = Date.now();
    expect(await feed.read()).toEqual({ rest: true });
    expect(Date.now() - t1).toBeLessThan(150);
  });
});
