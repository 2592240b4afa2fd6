import { describe, expect, it } from "vitest";
import { PaperGateway } from "../../src/engine/paper-gateway.ts";
import type { MarketSnapshot } from "../../src/strategies/sdk.ts";
import { snap } from "../strategies/helpers.ts";

const book = (mid: number, t = 1): MarketSnapshot =>
  snap({
    mid,
    bid: mid - 1,
    ask: mid + 1,
    timestampMs: t,
    book: {
      bids: [
        { px: mid - 1, sz: 1 },
        { px: mid - 2, sz: 2 },
      ],
      asks: [
        { px: mid + 1, sz: 1 },
        { px: mid + 2, sz: 2 },
      ],
    },
  });

const req = (side: "buy" | "sell", price: string, size: string, tif: "Ioc" | "Alo" | "Gtc") => ({
  instrument: "ETH-PERP",
  cloid: "0x00000000000000000000000000000001" as const,
  side,
  price,
  size,
  tif,
  reduceOnly: false,
});

describe("dry-run paper book", () => {
  it("IOC walks the real book up to its limit and cancels the rest", async () => {
    const g = new PaperGateway({ fees: { taker: "0.001", maker: "0.00015" } });
    g.describe("ETH-PERP", { szDecimals: 4, asset: 1 });
    g.observe(book(100));
    expect(await g.place([req("buy", "102", "5", "Ioc")])).toEqual([
      { status: "filled", oid: expect.any(String) },
    ]);
    const fills = await g.fills("ETH-PERP", 0);
    expect(fills.map((f) => [f.price, f.size, f.fee])).toEqual([
      ["101", "1", "0.101"],
      ["102", "2", "0.204"],
    ]);
    expect(await g.position("ETH-PERP")).toEqual({ qty: "3", entryPx: "101.6666666667" });
    expect(await g.openOrders("ETH-PERP")).toEqual([]);
  });

  it("Alo that would cross is rejected; resting orders fill only once the market trades through", async () => {
    const g = new PaperGateway();
    g.describe("ETH-PERP", { szDecimals: 4, asset: 1 });
    g.observe(book(100));
    expect((await g.place([req("buy", "101", "1", "Alo")]))[0]!.status).toBe("rejected");
    expect((await g.place([req("buy", "99.5", "1", "Alo")]))[0]!.status).toBe("resting");
    g.observeTrades("ETH-PERP", []); // where the tape starts
    g.observe(book(100.2, 2));
    expect(await g.fills("ETH-PERP", 0)).toEqual([]);
    g.observe(book(98.4, 3)); // ask 99.4×1 ≤ 99.5: that displayed lot trades with us
    const [f] = await g.fills("ETH-PERP", 0);
    expect(f).toMatchObject({ side: "buy", price: "99.5", size: "1", timeMs: 3 });
    expect(await g.openOrders("ETH-PERP")).toEqual([]);
  });

  it("charges the builder's fee beside the exchange's, each rounded to the micro-USDC", async () => {
    const g = new PaperGateway({ fees: { taker: "0.00045", maker: "0.00015" }, builderFeeRate: "0.001" });
    g.describe("ETH-PERP", { szDecimals: 4, asset: 1 });
    g.observe(book(100));
    await g.place([req("buy", "101", "0.1237", "Ioc")]);
    // 101 × 0.1237 = 12.4937: 0.005622165 → 0.005622, and 0.0124937 → 0.012494.
    expect((await g.fills("ETH-PERP", 0)).map((f) => f.fee)).toEqual(["0.018116"]);
  });

  it("charges the account's rates: a maker rebate is paid to the balance", async () => {
    const g = new PaperGateway({ fees: { taker: "0.0004608", maker: "-0.00003" }, balanceUsd: "1000" });
    g.describe("ETH-PERP", { szDecimals: 4, asset: 1 });
    g.observe(book(100));
    await g.place([{ ...req("buy", "99.5", "1", "Alo"), cloid: "0x00000000000000000000000000000002" }]);
    g.observe(book(98.4, 2));
    await g.place([req("sell", "97", "0.5", "Ioc")]);
    const fills = await g.fills("ETH-PERP", 0);
    // 99.5 × 1 × −0.003 % = −0.002985; 97.4 × 0.5 × 0.04608 % = 0.02244096, to the micro-USDC.
    expect(fills.map((f) => [f.price, f.size, f.fee])).toEqual([
      ["99.5", "1", "-0.002985"],
      ["97.4", "0.5", "0.022441"],
    ]);
    // 1000 + 0.002985 − 0.022441, and 0.5 × (97.4 − 99.5) realized.
    expect(g.balance()).toBe("998.930544");
  });
});

describe("dry-run fills no better than the market allows", () => {
  const print = (side: "buy" | "sell", px: number, sz: number, timeMs: number, id: string) => ({
    id,
    side,
    px,
    sz,
    timeMs,
  });

  it("takers consume the displayed liquidity until the book refreshes", async () => {
    const g = new PaperGateway();
    g.describe("ETH-PERP", { szDecimals: 4, asset: 1 });
    g.observe(book(100)); // asks 101×1, 102×2
    const buy = () => g.place([req("buy", "101", "1", "Ioc")]);
    expect((await buy())[0]!.status).toBe("filled");
    expect((await buy())[0]!.status).toBe("rejected");
    expect((await buy())[0]!.status).toBe("rejected");
    let fills = await g.fills("ETH-PERP", 0);
    expect(fills.map((f) => [f.price, f.size])).toEqual([["101", "1"]]);
    // The same book again (nothing changed at 101): what we took is still gone.
    g.observe(book(100, 2));
    expect((await buy())[0]!.status).toBe("rejected");
    // A refreshed level shows new liquidity.
    const refreshed = book(100, 3);
    refreshed.book.asks[0] = { px: 101, sz: 0.5 };
    g.observe(refreshed);
    expect(await g.place([req("buy", "102", "3", "Ioc")])).toEqual([
      { status: "filled", oid: expect.any(String) },
    ]);
    fills = await g.fills("ETH-PERP", 0);
    expect(fills.map((f) => [f.price, f.size])).toEqual([
      ["101", "1"],
      ["101", "0.5"],
      ["102", "2"],
    ]);
  });

  it("a resting order the book moves through fills only the size displayed through its price", async () => {
    const g = new PaperGateway();
    g.describe("ETH-PERP", { szDecimals: 4, asset: 1 });
    g.observe(book(100, 10)); // bids 99×1, 98×2; asks 101×1, 102×2
    g.observeTrades("ETH-PERP", []);
    expect((await g.place([req("sell", "102", "50", "Gtc")]))[0]!.status).toBe("resting");
    const through = book(103, 11);
    through.book.bids = [
      { px: 102.01, sz: 0.01 },
      { px: 101, sz: 3 },
    ];
    g.observe(through); // only 0.01 is displayed at or above our 102
    let fills = await g.fills("ETH-PERP", 0);
    expect(fills.map((f) => [f.side, f.price, f.size, f.timeMs])).toEqual([["sell", "102", "0.01", 11]]);
    // The same book again: that 0.01 is used up.
    g.observe({ ...through, timestampMs: 12 });
    expect(await g.fills("ETH-PERP", 0)).toHaveLength(1);
    g.observeTrades("ETH-PERP", [print("buy", 102, 0.5, 13, "t1")]);
    fills = await g.fills("ETH-PERP", 0);
    expect(fills.map((f) => [f.side, f.price, f.size])).toEqual([
      ["sell", "102", "0.01"],
      ["sell", "102", "0.5"],
    ]);
    expect(await g.openOrders("ETH-PERP")).toMatchObject([{ size: "49.49" }]);
  });

  it("a resting order fills only from volume traded at or through its price, after the size queued ahead", async () => {
    const g = new PaperGateway();
    g.describe("ETH-PERP", { szDecimals: 4, asset: 1 });
    g.observe(book(100, 10)); // asks 101×1, 102×2
    g.observeTrades("ETH-PERP", []);
    expect((await g.place([req("sell", "102", "50", "Gtc")]))[0]!.status).toBe("resting");
    // A print from before the order was placed never fills it; 1.5 at our price goes to the 2 ahead.
    g.observeTrades("ETH-PERP", [print("buy", 102, 5, 9, "t0"), print("buy", 102, 1.5, 12, "t1")]);
    expect(await g.fills("ETH-PERP", 0)).toEqual([]);
    // 1 more: 0.5 finishes the queue, 0.5 fills us at our price; a sell print never fills a sell.
    g.observeTrades("ETH-PERP", [
      print("buy", 102, 1.5, 12, "t1"),
      print("buy", 102.5, 1, 13, "t2"),
      print("sell", 102, 7, 14, "t3"),
    ]);
    const fills = await g.fills("ETH-PERP", 0);
    expect(fills.map((f) => [f.side, f.price, f.size, f.timeMs])).toEqual([["sell", "102", "0.5", 13]]);
    expect(await g.openOrders("ETH-PERP")).toMatchObject([{ side: "sell", price: "102", size: "49.5" }]);
    // Prints below a sell's price do not reach it.
    g.observeTrades("ETH-PERP", [print("buy", 101.5, 10, 15, "t4")]);
    expect(await g.fills("ETH-PERP", 0)).toHaveLength(1);
  });

  it("watch() feeds the market's trade prints to the paper book", async () => {
    const g = new PaperGateway();
    g.describe("ETH-PERP", { szDecimals: 4, asset: 1 });
    let prints = [print("sell", 99, 1, 1, "a")];
    const market = g.watch({
      spec: async (instrument) => ({ instrument, szDecimals: 2 }),
      snapshot: async () => book(100, 20),
      trades: async () => prints,
    });
    await market.snapshot("ETH-PERP");
    // 1 lot is displayed at 99 ahead of us.
    expect((await g.place([req("buy", "99", "1", "Gtc")]))[0]!.status).toBe("resting");
    prints = [...prints, print("sell", 98.5, 10, 21, "b")];
    await market.snapshot("ETH-PERP");
    const fills = await g.fills("ETH-PERP", 0);
    expect(fills.map((f) => [f.side, f.price, f.size])).toEqual([["buy", "99", "1"]]);
  });

  it("watch() reads the tape only while an order of ours rests there, and fills it from prints after its book", async () => {
    const g = new PaperGateway();
    g.describe("ETH-PERP", { szDecimals: 4, asset: 1 });
    let reads = 0;
    let prints = [print("sell", 99, 1, 19, "a"), print("sell", 98, 3, 20, "b")];
    let t = 20;
    const market = g.watch({
      spec: async (instrument) => ({ instrument, szDecimals: 2 }),
      snapshot: async () => book(100, t),
      trades: async () => {
        reads += 1;
        return prints;
      },
    });
    // Nothing of ours rests: the tape could fill nothing (a read weighs 20 and more).
    await market.snapshot("ETH-PERP");
    expect(reads).toBe(0);
    // 1 lot is displayed at 99 ahead of us; the book we placed on is of t = 20.
    expect((await g.place([req("buy", "99", "1", "Gtc")]))[0]!.status).toBe("resting");
    prints = [...prints, print("sell", 99, 0.5, 21, "c"), print("sell", 98.5, 1, 22, "d")];
    t = 23;
    await market.snapshot("ETH-PERP");
    expect(reads).toBe(1);
    // "a" and "b" (in the millisecond of that book: no tape read shows whether before or after us)
    // are left out; "c" and "d" take the 1 ahead, then fill 0.5 of ours.
    const fills = await g.fills("ETH-PERP", 0);
    expect(fills.map((f) => [f.side, f.price, f.size, f.timeMs])).toEqual([["buy", "99", "0.5", 22]]);
    // The order still rests: the next book reads the tape again, and a print already applied is not again.
    prints = [...prints, print("sell", 99, 0.25, 24, "e")];
    t = 25;
    await market.snapshot("ETH-PERP");
    expect(reads).toBe(2);
    expect((await g.fills("ETH-PERP", 0)).map((f) => f.size)).toEqual(["0.5", "0.25"]);
  });
});

describe("the book a dry-run strategy reads", () => {
  it("shows its own resting orders, as the venue's book would", async () => {
    const g = new PaperGateway();
    g.describe("ETH-PERP", { szDecimals: 4, asset: 1 });
    const market = g.watch({
      spec: async (instrument) => ({ instrument, szDecimals: 2 }),
      snapshot: async () => book(100, 30), // bids 99×1, 98×2; asks 101×1, 102×2
    });
    await market.snapshot("ETH-PERP");
    await g.place([req("buy", "99.5", "2", "Gtc"), req("sell", "101", "0.5", "Gtc")]);
    const s = await market.snapshot("ETH-PERP");
    expect(s.bid).toBe(99.5);
    expect(s.ask).toBe(101);
    expect(s.mid).toBe(100.25);
    expect(s.book.bids.slice(0, 2)).toEqual([
      { px: 99.5, sz: 2 },
      { px: 99, sz: 1 },
    ]);
    expect(s.book.asks[0]).toEqual({ px: 101, sz: 1.5 });
  });
});

describe("dry-run refusals as the exchange's", () => {
  it("an order worth less than $10 is refused with the exchange's text, unless it only reduces", async () => {
    const g = new PaperGateway({ fees: { taker: "0.001", maker: "0.00015" } });
    g.describe("ETH-PERP", { szDecimals: 4, asset: 1 });
    g.observe(book(100));
    const [small] = await g.place([req("buy", "99", "0.05", "Gtc")]);
    expect(small).toEqual({
      status: "rejected",
      message: expect.stringMatching(/^Order must have minimum value of \$10\./),
    });
    expect(await g.openOrders("ETH-PERP")).toEqual([]);
    await g.place([req("buy", "102", "1", "Ioc")]);
    const [reduce] = await g.place([{ ...req("sell", "98", "0.05", "Ioc"), reduceOnly: true }]);
    expect(reduce?.status).toBe("filled");
  });
});
