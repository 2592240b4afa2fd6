import ccxt from "ccxt";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimWorld, startSimWorld } from "../../src/sim/world.ts";

/** ccxt's own Hyperliquid adapter, unchanged except for its URLs, trading on the sim world. */

let world: SimWorld;
let exchange: InstanceType<typeof ccxt.hyperliquid>;
const key = generatePrivateKey();
const address = privateKeyToAccount(key).address;

beforeAll(async () => {
  world = await startSimWorld({ seed: 31 });
  // The sim opens an account with its starting balance the first time it sees an address.
  await fetch(`${world.url}/info`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ type: "clearinghouseState", user: address }),
  });
  exchange = new ccxt.hyperliquid({
    fetchImplementation: async (url: string, init: RequestInit) => {
      const res = await fetch(url, init);
      if (!res.ok) refused.push(`${init.body} → ${res.status} ${await res.clone().text()}`);
      return res;
    },
    walletAddress: address,
    privateKey: key,
    urls: { api: { public: world.url, private: world.url } },
    timeout: 10_000,
    // A local server: no client-side throttling.
    enableRateLimit: false,
    // The paper network is signed as testnet (source "b"): the only flavour the sim accepts.
    options: { sandboxMode: true },
  });
});

afterAll(async () => {
  await world?.close();
});

/** Every request ccxt sent that the sim refused (none may be). */
const refused: string[] = [];

describe("ccxt hyperliquid against the sim world", () => {
  afterAll(() => {
    expect(refused).toEqual([]);
  });

  it("loads markets", async () => {
    const markets = await exchange.loadMarkets();
    expect(markets["BTC/USDC:USDC"]).toMatchObject({ swap: true, base: "BTC", quote: "USDC" });
    expect(markets["ETH/USDC:USDC"]?.precision.amount).toBe(0.0001);
    // HIP-3 dexes too, as ccxt names them.
    expect(markets["YEX-VXX/USDC:USDC"]).toMatchObject({ swap: true, baseName: "yex:VXX" });
  });

  it("fetches a book, the balance and positions", async () => {
    const book = await exchange.fetchOrderBook("BTC/USDC:USDC");
    expect(book.bids.length).toBeGreaterThan(0);
    expect(book.asks.length).toBeGreaterThan(0);
    expect(book.bids[0]![0]!).toBeLessThan(book.asks[0]![0]!);
    const balance = await exchange.fetchBalance();
    expect(balance.USDC?.total).toBeGreaterThan(0);
    expect(await exchange.fetchPositions()).toEqual([]);
  });

  it("places, fetches and cancels a limit order", async () => {
    const book = await exchange.fetchOrderBook("ETH/USDC:USDC");
    const price = Math.round(book.bids[0]![0]! * 0.9);
    const placed = await exchange.createOrder("ETH/USDC:USDC", "limit", "buy", 0.01, price);
    const id = placed.id;
    if (!id) throw new Error(`no order id in ${JSON.stringify(placed)}`);
    const fetched = await exchange.fetchOrder(id, "ETH/USDC:USDC");
    expect(fetched).toMatchObject({ id, status: "open", side: "buy", price, amount: 0.01 });
    const open = await exchange.fetchOpenOrders("ETH/USDC:USDC");
    expect(open.map((o) => o.id)).toContain(id);
    await exchange.cancelOrder(id, "ETH/USDC:USDC");
    expect((await exchange.fetchOrder(id, "ETH/USDC:USDC")).status).toBe("canceled");
  });

  it("gets a fill from a marketable order and shows the position", async () => {
    const book = await exchange.fetchOrderBook("BTC/USDC:USDC");
    const order = await exchange.createOrder("BTC/USDC:USDC", "market", "buy", 0.001, book.asks[0]![0]!);
    expect(order.id).toBeTruthy();
    const trades = await exchange.fetchMyTrades("BTC/USDC:USDC");
    expect(trades.at(-1)).toMatchObject({ symbol: "BTC/USDC:USDC", side: "buy", amount: 0.001 });
    const positions = await exchange.fetchPositions(["BTC/USDC:USDC"]);
    expect(positions[0]).toMatchObject({ symbol: "BTC/USDC:USDC", side: "long", contracts: 0.001 });
  });
});
