import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { HlGateway, HlMarketData } from "../../src/engine/hl-adapter.ts";
import type { GatewayFill } from "../../src/engine/ports.ts";
import { RateBudget } from "../../src/exchange/budget.ts";
import { HlClient } from "../../src/exchange/client.ts";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("hl run gateway: fills from the userFills stream", () => {
  let world: SimWorld;
  let client: HlClient;
  let gateway: HlGateway;
  let restReads: ReturnType<typeof vi.spyOn>;
  /** The engine's fill cursor: the newest fill time handed over, and the ids handed over at that time. */
  const cursor = { timeMs: Date.now() - 60_000, ids: new Set<string>() };

  /** One engine read: the gateway's fills since the cursor, those past it kept and the cursor moved. */
  async function read(): Promise<GatewayFill[]> {
    const fresh = (await gateway.fills("ETH-PERP", cursor.timeMs)).filter(
      (f) => f.timeMs > cursor.timeMs || (f.timeMs === cursor.timeMs && !cursor.ids.has(f.id)),
    );
    for (const f of fresh) {
      if (f.timeMs > cursor.timeMs) {
        cursor.timeMs = f.timeMs;
        cursor.ids = new Set();
      }
      cursor.ids.add(f.id);
    }
    return fresh;
  }

  beforeAll(async () => {
    world = await startSimWorld({ port: 0, seed: 11 });
    const dir = mkdtempSync(join(tmpdir(), "hl-fill-stream-"));
    client = await HlClient.create({
      network: "paper",
      apiUrl: world.url,
      env: { DATA_DIR: dir },
      budget: new RateBudget({ weightPerMinute: 1e9 }),
    });
    await client.accountSummary();
    const market = new HlMarketData(client);
    gateway = new HlGateway(client, market, {
      source: client.stream,
      user: client.address!,
      restEvery: 1_000,
    });
    restReads = vi.spyOn(client, "userFillsSince");
  });
  afterAll(async () => {
    gateway.close();
    await client.close();
    await world.close();
  });

  /** Reads until a read makes no REST call (the stream is trusted), bounded. */
  async function readUntilStreaming(seen: GatewayFill[]): Promise<void> {
    for (let i = 0; i < 60; i++) {
      const before = restReads.mock.calls.length;
      seen.push(...(await read()));
      if (restReads.mock.calls.length === before) return;
      await sleep(50);
    }
    throw new Error("the fills stream never became trusted");
  }

  async function take(instrument: string, side: "buy" | "sell"): Promise<void> {
    const mid = Number((await client.allMidsMerged())[instrument.replace("-PERP", "")]);
    const price = side === "buy" ? mid * 1.02 : mid * 0.98;
    const size = instrument.startsWith("BTC") ? "0.001" : "0.01";
    await client.order({ instrument, side, size, price: price.toPrecision(5), tif: "Ioc" });
  }

  it("reads no REST when nothing happened on the coin, and hands each streamed fill over once", async () => {
    const seen: GatewayFill[] = [];
    await readUntilStreaming(seen);
    const before = restReads.mock.calls.length;
    for (let i = 0; i < 5; i++) seen.push(...(await read()));
    await take("BTC-PERP", "buy"); // another coin's activity on the account
    await take("ETH-PERP", "buy");
    let eth: GatewayFill[] = [];
    for (let i = 0; i < 40 && eth.length === 0; i++) {
      await sleep(50);
      eth = await read();
      seen.push(...eth);
    }
    for (let i = 0; i < 3; i++) seen.push(...(await read()));
    expect(restReads.mock.calls.length).toBe(before);
    expect(eth.length).toBeGreaterThan(0);
    expect(seen.map((f) => f.id)).toEqual(eth.map((f) => f.id));
  }, 20_000);

  it("falls back to REST when the stream drops, and misses nothing", async () => {
    const seen: GatewayFill[] = [];
    await readUntilStreaming(seen);
    const before = restReads.mock.calls.length;
    const res = await fetch(`${world.url}/sim/fault`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ kind: "drop_ws" }),
    });
    expect(res.ok).toBe(true);
    await take("ETH-PERP", "sell"); // while the stream is down or resubscribing
    const ids = new Set<string>();
    for (let i = 0; i < 60; i++) {
      const got = await read();
      seen.push(...got);
      for (const f of got) if (f.side === "sell") ids.add(f.id);
      if (ids.size > 0 && i > 3) break;
      await sleep(50);
    }
    expect(restReads.mock.calls.length).toBeGreaterThan(before);
    expect(ids.size).toBeGreaterThan(0);
    // The stream is trusted again once resubscribed, and the sell is not handed over a second time.
    const later: GatewayFill[] = [];
    await readUntilStreaming(later);
    for (let i = 0; i < 3; i++) later.push(...(await read()));
    const onExchange = (await client.userFillsSince({ startTime: 0 }))
      .filter((f) => f.coin === "ETH" && f.side === "A")
      .map((f) => String(f.tid));
    const handedOver = [...seen, ...later].filter((f) => f.side === "sell").map((f) => f.id);
    expect(onExchange.length).toBeGreaterThan(0);
    expect(handedOver.sort()).toEqual(onExchange.sort());
  }, 20_000);

  it("tells a listener of the pushed fills on its instrument, not of another coin's", async () => {
    await readUntilStreaming([]);
    let heard = 0;
    const detach = gateway.onFillPushed("ETH-PERP", () => heard++);
    try {
      await take("BTC-PERP", "buy");
      await take("ETH-PERP", "buy");
      for (let i = 0; i < 40 && heard === 0; i++) await sleep(25);
      expect(heard).toBe(1);
      // What the push announced is in the next read, from the stream.
      const before = restReads.mock.calls.length;
      const got = await gateway.fills("ETH-PERP", cursor.timeMs, { prompted: true });
      expect(restReads.mock.calls.length).toBe(before);
      expect(got.some((f) => f.side === "buy" && f.timeMs >= cursor.timeMs)).toBe(true);
      await read();
    } finally {
      detach();
    }
  });

  it("an order the exchange answered filled is in the very next read, even before the stream delivers it", async () => {
    await readUntilStreaming([]);
    const mid = Number((await client.allMidsMerged()).ETH);
    const [out] = await gateway.place([
      {
        instrument: "ETH-PERP",
        cloid: "0x000000000000000000000000000000f1",
        side: "buy",
        price: (mid * 1.02).toPrecision(5),
        size: "0.01",
        tif: "Ioc",
        reduceOnly: false,
      },
    ]);
    expect(out?.status).toBe("filled");
    const next = await read();
    expect(next.map((f) => f.oid)).toContain((out as { oid: string }).oid);
  });

  it("hands a liquidation fill over with the exchange's liquidation block, as the dry-run book prints it", async () => {
    const time = Date.now();
    const liquidation = { liquidatedUser: client.address!, markPx: "3395.2", method: "market" as const };
    const fill = {
      coin: "ETH",
      px: "3395",
      sz: "0.5",
      side: "A" as const,
      time,
      startPosition: "0.5",
      dir: "Close Long",
      closedPnl: "-2.5",
      hash: `0x${"0".repeat(64)}` as const,
      oid: 991,
      crossed: true,
      fee: "0.76",
      tid: 992,
      feeToken: "USDC",
      liquidation,
    };
    restReads.mockResolvedValueOnce([fill]);
    const [got] = (await gateway.fills("ETH-PERP", time, { fresh: true })).filter((f) => f.id === "992");
    expect(got?.liquidation).toEqual({ method: "market", markPx: "3395.2" });
  });
});
